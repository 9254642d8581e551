// Activities every activity pool registers, so a workflow can prove that each pool answers.
import os from 'node:os';
import { Context } from '@temporalio/activity';
import { currentRequestId } from '../../lib/request-context.ts';
import type { ActivityPool } from '../../workflows/task-queues.ts';

export interface WorkerReport {
  pool: ActivityPool;
  hostname: string;
  pid: number;
  answeredAt: string;
  /** The id of the API request behind the job, as this activity received it (null when none). */
  requestId: string | null;
}

export function createDiagnosticsActivities(pool: ActivityPool) {
  return {
    async reportWorker(): Promise<WorkerReport> {
      Context.current().log.info('pipeline check reached this pool', { pool });
      return { pool, hostname: os.hostname(), pid: process.pid, answeredAt: new Date().toISOString(), requestId: currentRequestId() ?? null };
    },
  };
}

export type DiagnosticsActivities = ReturnType<typeof createDiagnosticsActivities>;
