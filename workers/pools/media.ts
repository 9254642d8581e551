// The `media` pool: activities only, on the `media` task queue.
import type { Worker } from '@temporalio/worker';
import { createActivityWorker, type PoolContext } from './pool-worker.ts';

export function createMediaWorker(ctx: PoolContext): Promise<Worker> {
  return createActivityWorker('media', ctx, {});
}
