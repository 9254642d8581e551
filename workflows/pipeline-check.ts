// THE TEMPLATE for a job on this platform; later jobs (load tests, bulk checks, audits, video) follow it:
// - the API starts it with the public id as workflow id (kind prefix inside Temporal) and the owner in memo;
// - it runs only on the `workflows` task queue and reaches the activity pools through proxyActivities;
// - its state lives in one object, read by the API through a query of the shared definitions (lib/jobs/),
//   whose name, input and output types the API, the workers and the activities share without this code.
// What it does is useful on its own: it proves that every activity pool has a live worker.
import { proxyActivities, setHandler, TimeoutFailure, workflowInfo } from '@temporalio/workflow';
import type { DiagnosticsActivities } from '../activities/diagnostics/index.ts';
import { activityCause } from './activity-failures.ts';
import { ACTIVITY_POOLS, getPipelineCheckState, TASK_QUEUES, type PipelineCheckState } from '../lib/jobs/index.ts';
/** How long a pool may take to pick the task up and answer before the check calls it down. */
const POOL_DEADLINE = '30 seconds';

export async function pipelineCheck(): Promise<PipelineCheckState> {
  const state: PipelineCheckState = {
    status: 'running',
    startedAt: new Date(workflowInfo().startTime).toISOString(),
    completedAt: null,
    pools: { network: { status: 'pending' }, load: { status: 'pending' }, media: { status: 'pending' } },
  };
  setHandler(getPipelineCheckState, () => state);

  await Promise.all(
    ACTIVITY_POOLS.map(async (pool) => {
      const { reportWorker } = proxyActivities<DiagnosticsActivities>({
        taskQueue: TASK_QUEUES[pool],
        scheduleToCloseTimeout: POOL_DEADLINE,
        startToCloseTimeout: '10 seconds',
      });
      try {
        state.pools[pool] = { status: 'ok', worker: await reportWorker() };
      } catch (err) {
        // No worker took it in time, or one took it and failed (at once, or on every try until the
        // deadline: the timeout then carries the last try's failure): each said as it is.
        let cause = activityCause(err);
        if (cause instanceof TimeoutFailure && cause.cause) cause = cause.cause;
        state.pools[pool] = {
          status: 'failed',
          reason:
            cause instanceof TimeoutFailure
              ? `no ${pool} worker answered within ${POOL_DEADLINE}`
              : `the ${pool} worker failed: ${cause.message}`,
        };
      }
    }),
  );

  state.status = Object.values(state.pools).every((p) => p.status === 'ok') ? 'completed' : 'failed';
  state.completedAt = new Date().toISOString();
  return state;
}
