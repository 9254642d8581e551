// Bulk domain check: the API groups the names by registry and starts this; it checks a bounded number
// of groups at a time and, within a group, at most `concurrency` names at once (politeness: many .com
// names never hammer one registry): an activity per name, or per `batch` of names (the fast modes).
// Every answer is kept in the workflow's state as it comes, so the API can answer by its deadline
// with what is known (getDomainCheckState) while the rest goes on.
import { patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { WhoisActivities } from '../activities/whois/index.ts';
import { activityFailureMessage } from './activity-failures.ts';
import { inLanes } from '../lib/concurrency/lanes.ts';
import {
  getDomainCheckState,
  TASK_QUEUES,
  type BulkAnswers,
  type DomainCheckJob,
  type DomainCheckState,
} from '../lib/jobs/index.ts';
/** Groups (registries) checked at the same time. */
export const MAX_PARALLEL_GROUPS = 8;

const { checkDomain, checkDomains } = proxyActivities<WhoisActivities>({
  taskQueue: TASK_QUEUES.network,
  // One name: RDAP, WHOIS and DNS, each bounded by LOOKUP_TIMEOUT_MS (at most 60 s); a batch of the
  // fast modes' names, each DNS only.
  startToCloseTimeout: '4 minutes',
  retry: { maximumAttempts: 2 },
});

export async function bulkDomainCheck(job: DomainCheckJob): Promise<BulkAnswers> {
  const results: BulkAnswers = { ...job.known };
  const state: DomainCheckState = {
    status: 'running',
    total: job.groups.reduce((n, g) => n + g.domains.length, 0),
    done: 0,
    results,
  };
  setHandler(getDomainCheckState, () => state);
  const failed = (err: unknown) => {
    // A check that failed twice (a worker lost, a bug) is reported for its names, not the whole check.
    const said = activityFailureMessage(err);
    if (said === undefined) throw err;
    return { error: `the check failed: ${said}` };
  };
  const batch = Math.max(1, job.batch ?? 1);
  await inLanes(job.groups, MAX_PARALLEL_GROUPS, async (group) => {
    if (batch === 1) {
      await inLanes(group.domains, group.concurrency, async (domain) => {
        try {
          results[domain] = await checkDomain(domain, job.mode);
        } catch (err) {
          results[domain] = failed(err);
        }
        state.done++;
      });
      return;
    }
    // Batches of a group's names, the group's bound of `concurrency` kept across them. A group's
    // batches run at once, the bound shared among them (an activity's round trip through Temporal
    // costs more than its DNS answers, so one wave beats two); a check started before that (its
    // history without the patch's marker) goes on as it began: as many whole batches as the bound allows.
    const batches = Array.from({ length: Math.ceil(group.domains.length / batch) }, (_, i) =>
      group.domains.slice(i * batch, (i + 1) * batch),
    );
    const together = patched('bulk-batches-together');
    const lanes = together
      ? Math.min(batches.length, group.concurrency)
      : Math.max(1, Math.floor(group.concurrency / Math.min(batch, group.concurrency)));
    const inside = together
      ? Math.min(batch, Math.max(1, Math.floor(group.concurrency / lanes)))
      : Math.min(batch, group.concurrency);
    await inLanes(batches, lanes, async (names) => {
      try {
        Object.assign(results, await checkDomains(names, job.mode, inside));
      } catch (err) {
        const why = failed(err);
        for (const domain of names) results[domain] = why;
      }
      state.done += names.length;
    });
  });
  state.status = 'completed';
  return results;
}
