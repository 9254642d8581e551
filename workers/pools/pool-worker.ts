// What the pools' workers share: the connection and storage they get, and the activity-only worker.
import type { DataConverter } from '@temporalio/common';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { createDiagnosticsActivities } from '../../activities/diagnostics/index.ts';
import type { Config } from '../../lib/config.ts';
import type { Storage } from '../platform.ts';
import { TASK_QUEUES, type ActivityPool } from '../../lib/jobs/task-queues.ts';
import { callersFaultsFailAtOnce, requestIdInLogs } from './interceptors.ts';

export interface PoolContext {
  connection: NativeConnection;
  namespace: string;
  dataConverter: DataConverter;
  config: Config;
  /** Open in every role but worker:workflows (workflow code touches no storage). */
  storage: Storage | undefined;
}

/**
 * An activity-only worker on one pool's task queue (or `taskQueue`, another of the pool's): it never runs
 * workflow code.
 */
export function createActivityWorker(
  pool: ActivityPool,
  ctx: PoolContext,
  activities: object,
  options: Partial<
    Pick<WorkerOptions, 'maxHeartbeatThrottleInterval' | 'maxConcurrentActivityTaskExecutions' | 'taskQueue'>
  > = {},
): Promise<Worker> {
  return Worker.create({
    ...options,
    taskQueue: options.taskQueue ?? TASK_QUEUES[pool],
    connection: ctx.connection,
    namespace: ctx.namespace,
    dataConverter: ctx.dataConverter,
    activities: { ...createDiagnosticsActivities(pool), ...activities },
    interceptors: { activity: [requestIdInLogs, callersFaultsFailAtOnce] },
  });
}
