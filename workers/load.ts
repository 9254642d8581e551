// The `load` pool: activities only, on the `load` task queue.
import type { Worker } from '@temporalio/worker';
import { createActivityWorker, isMain, type PoolContext } from './pool-worker.ts';

export function createLoadWorker(ctx: PoolContext): Promise<Worker> {
  return createActivityWorker('load', ctx, {});
}

if (isMain(import.meta.url)) {
  const { runRole } = await import('./run.ts');
  await runRole('worker:load');
}
