// Bulk domain check: the API groups the names by registry and starts this; it fans the groups out to
// the network pool, a bounded number at a time, and returns every answer. Within a group the activity
// keeps at most `concurrency` queries in flight, so many .com names never hammer one registry.
import { proxyActivities, setHandler } from '@temporalio/workflow';
import type { WhoisActivities } from '../activities/whois/index.ts';
import { getDomainCheckState, TASK_QUEUES, type CheckedDomain, type DomainCheckJob, type DomainCheckState } from '../lib/jobs/index.ts';
/** Groups (registries) checked at the same time. */
export const MAX_PARALLEL_GROUPS = 8;

const { checkDomains } = proxyActivities<WhoisActivities>({
  taskQueue: TASK_QUEUES.network,
  // A group of 100 names at 4 at a time with a slow registry (5 s per step, 3 steps) fits in 10 minutes.
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 2 },
});

export async function bulkDomainCheck(job: DomainCheckJob): Promise<Record<string, CheckedDomain>> {
  const state: DomainCheckState = { status: 'running', total: job.groups.reduce((n, g) => n + g.domains.length, 0), done: 0 };
  setHandler(getDomainCheckState, () => state);
  const results: Record<string, CheckedDomain> = {};
  let next = 0;
  const lane = async () => {
    while (next < job.groups.length) {
      const group = job.groups[next++]!;
      Object.assign(results, await checkDomains(group.domains, job.mode, group.concurrency));
      state.done += group.domains.length;
    }
  };
  await Promise.all(Array.from({ length: Math.min(MAX_PARALLEL_GROUPS, job.groups.length) }, lane));
  state.status = 'completed';
  return results;
}
