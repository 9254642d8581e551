// The `network` pool: activities only, on the `network` task queue.
import type { Worker } from '@temporalio/worker';
import { createActivityWorker, isMain, type PoolContext } from './pool-worker.ts';

export function createNetworkWorker(ctx: PoolContext): Promise<Worker> {
  return createActivityWorker('network', ctx, {});
}

if (isMain(import.meta.url)) {
  const { runRole } = await import('./run.ts');
  await runRole('worker:network');
}
