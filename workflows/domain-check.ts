// Bulk domain check: the API groups the names by registry and starts this; it checks a bounded number
// of groups at a time and, within a group, at most `concurrency` names at once (politeness: many .com
// names never hammer one registry). Every answer is kept in the workflow's state as it comes, so the
// API can answer by its deadline with what is known (getDomainCheckState) while the rest goes on.
import { ActivityFailure, isCancellation, proxyActivities, setHandler } from '@temporalio/workflow';
import type { WhoisActivities } from '../activities/whois/index.ts';
import { inLanes } from '../lib/lanes.ts';
import {
  getDomainCheckState,
  TASK_QUEUES,
  type BulkAnswers,
  type DomainCheckJob,
  type DomainCheckState,
} from '../lib/jobs/index.ts';
/** Groups (registries) checked at the same time. */
export const MAX_PARALLEL_GROUPS = 8;

const { checkDomain } = proxyActivities<WhoisActivities>({
  taskQueue: TASK_QUEUES.network,
  // One name: RDAP, WHOIS and DNS, each bounded by LOOKUP_TIMEOUT_MS (at most 60 s).
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
  await inLanes(job.groups, MAX_PARALLEL_GROUPS, async (group) => {
    await inLanes(group.domains, group.concurrency, async (domain) => {
      try {
        results[domain] = await checkDomain(domain, job.mode);
      } catch (err) {
        // A name whose check failed twice (a worker lost, a bug) is reported, not the whole check.
        if (!(err instanceof ActivityFailure) || isCancellation(err)) throw err;
        results[domain] = { error: `the check failed: ${err.cause?.message ?? err.message}` };
      }
      state.done++;
    });
  });
  state.status = 'completed';
  return results;
}
