// Activities every activity pool registers, so a workflow can prove that each pool answers.
import os from 'node:os';
import { Context } from '@temporalio/activity';
import { currentRequestId } from '../../lib/request-context.ts';
import type { ActivityPool, WorkerReport } from '../../lib/jobs/index.ts';

export function createDiagnosticsActivities(pool: ActivityPool) {
  return {
    async reportWorker(): Promise<WorkerReport> {
      Context.current().log.info('pipeline check reached this pool', { pool });
      return {
        pool,
        hostname: os.hostname(),
        pid: process.pid,
        answeredAt: new Date().toISOString(),
        requestId: currentRequestId() ?? null,
      };
    },
  };
}

export type DiagnosticsActivities = ReturnType<typeof createDiagnosticsActivities>;
