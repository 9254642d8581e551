// The `load` pool: activities only, on the `load` task queue.
import type { Worker } from '@temporalio/worker';
import { createLoadActivities } from '../../activities/load/index.ts';
import { createLoadOutputActivities } from '../../activities/load/outputs.ts';
import { warmLoadThreads } from '../../domain/load/threads.ts';
import { createActivityWorker, type PoolContext } from './pool-worker.ts';
import { SHARD_HEARTBEAT_EVERY } from '../../workflows/load-test-plan.ts';

export function createLoadWorker(ctx: PoolContext): Promise<Worker> {
  if (!ctx.storage) throw new Error('the load pool needs storage (shard totals)');
  const activities = createLoadActivities({
    db: ctx.storage.database.db,
    allow: ctx.config.networkAllow,
    threads: ctx.config.loadThreads,
  });
  // A process that is only a load worker starts its threads now (a lost worker's shard resumes sooner);
  // one that runs every role keeps their memory until a test needs them.
  if (ctx.config.role === 'worker:load') warmLoadThreads(ctx.config.loadThreads);
  // Temporal hears each heartbeat a shard gives (workflows/load-test-plan.ts: how a lost shard comes back).
  const outputs = createLoadOutputActivities({ db: ctx.storage.database.db, allow: ctx.config.networkAllow });
  return createActivityWorker(
    'load',
    ctx,
    { ...activities, ...outputs },
    { maxHeartbeatThrottleInterval: SHARD_HEARTBEAT_EVERY },
  );
}
