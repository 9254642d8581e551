import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { withRequest } from '../lib/request-context.ts';
import { Worker, type ActivityInterceptorsFactory, type NativeConnection } from '@temporalio/worker';
import { createDiagnosticsActivities } from '../activities/diagnostics/index.ts';
import type { Config } from '../lib/config.ts';
import type { Storage } from './platform.ts';
import { REQUEST_ID_HEADER, TASK_QUEUES, type ActivityPool } from '../workflows/task-queues.ts';

/** The request id the workflow put in the activity's headers goes into every log line of the activity. */
const requestIdInLogs: ActivityInterceptorsFactory = () => {
  let requestId: string | undefined;
  return {
    inbound: {
      async execute(input, next) {
        const header = input.headers[REQUEST_ID_HEADER];
        if (header) requestId = defaultPayloadConverter.fromPayload<string>(header);
        // Activity code reads it as the API code does (lib/request-context.ts).
        return requestId ? withRequest({ requestId }, () => next(input)) : next(input);
      },
    },
    outbound: {
      getLogAttributes(input, next) {
        return next(requestId ? { ...input, requestId } : input);
      },
    },
  };
};

export interface PoolContext {
  connection: NativeConnection;
  namespace: string;
  dataConverter: DataConverter;
  config: Config;
  /** Open in every role but worker:workflows (workflow code touches no storage). */
  storage: Storage | undefined;
}

/** An activity-only worker on one pool's task queue: it never runs workflow code. */
export function createActivityWorker(pool: ActivityPool, ctx: PoolContext, activities: Record<string, (...args: any[]) => Promise<unknown>>): Promise<Worker> {
  return Worker.create({
    connection: ctx.connection,
    namespace: ctx.namespace,
    taskQueue: TASK_QUEUES[pool],
    dataConverter: ctx.dataConverter,
    activities: { ...createDiagnosticsActivities(pool), ...activities },
    interceptors: { activity: [requestIdInLogs] },
  });
}

/** True when this module is the process's entry point. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(moduleUrl) === process.argv[1];
}
