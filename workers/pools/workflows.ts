// The `workflows` pool: workflow code only, no activities.
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import type * as workflows from '../../workflows/index.ts';
import type { JobWorkflows } from '../../lib/jobs/index.ts';
import { TASK_QUEUES } from '../../lib/jobs/task-queues.ts';
import type { PoolContext } from './pool-worker.ts';
import { withWorkflowBundle } from './workflow-bundle.ts';

// Compile time only: workflows/index.ts exports every workflow of the shared definitions (lib/jobs/) under
// the type name the API starts it by, with that signature; a missing, renamed or changed one fails typecheck.
type Implementing<T extends JobWorkflows> = T;
export type WorkflowBundle = Implementing<typeof workflows>;

export function createWorkflowsWorker(ctx: PoolContext): Promise<Worker> {
  const options = {
    workflowsPath: fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)),
    ...(ctx.dataConverter.failureConverterPath ? { failureConverterPath: ctx.dataConverter.failureConverterPath } : {}),
    workflowInterceptorModules: [fileURLToPath(new URL('../../workflows/interceptors.ts', import.meta.url))],
  };
  return withWorkflowBundle(options, (workflowBundle) =>
    Worker.create({
      connection: ctx.connection,
      namespace: ctx.namespace,
      taskQueue: TASK_QUEUES.workflows,
      workflowBundle,
      dataConverter: ctx.dataConverter,
    }),
  );
}
