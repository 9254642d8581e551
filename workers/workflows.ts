// The `workflows` pool: workflow code only, no activities.
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { TASK_QUEUES } from '../workflows/task-queues.ts';
import { isMain, type PoolContext } from './pool-worker.ts';

export async function createWorkflowsWorker(ctx: PoolContext): Promise<Worker> {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('../workflows/index.ts', import.meta.url)),
    failureConverterPath: ctx.dataConverter.failureConverterPath,
    workflowInterceptorModules: [fileURLToPath(new URL('../workflows/interceptors.ts', import.meta.url))],
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
  });
  return Worker.create({
    connection: ctx.connection,
    namespace: ctx.namespace,
    taskQueue: TASK_QUEUES.workflows,
    workflowBundle,
    dataConverter: ctx.dataConverter,
  });
}

if (isMain(import.meta.url)) {
  const { runRole } = await import('./run.ts');
  await runRole('worker:workflows');
}
