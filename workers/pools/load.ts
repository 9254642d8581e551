// The `load` pool: activities only, on the `load` task queue.
import type { Worker } from '@temporalio/worker';
import { createLoadActivities } from '../../activities/load/index.ts';
import { createActivityWorker, type PoolContext } from './pool-worker.ts';

export function createLoadWorker(ctx: PoolContext): Promise<Worker> {
  if (!ctx.storage) throw new Error('the load pool needs storage (shard totals)');
  return createActivityWorker('load', ctx, { ...createLoadActivities({ db: ctx.storage.database.db, allow: ctx.config.networkAllow, threads: ctx.config.loadThreads }) });
}
