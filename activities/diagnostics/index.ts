// Activities every activity pool registers, so a workflow can prove that each pool answers.
import os from 'node:os';
import type { ActivityPool } from '../../workflows/task-queues.ts';

export interface WorkerReport {
  pool: ActivityPool;
  hostname: string;
  pid: number;
  answeredAt: string;
}

export function createDiagnosticsActivities(pool: ActivityPool) {
  return {
    async reportWorker(): Promise<WorkerReport> {
      return { pool, hostname: os.hostname(), pid: process.pid, answeredAt: new Date().toISOString() };
    },
  };
}

export type DiagnosticsActivities = ReturnType<typeof createDiagnosticsActivities>;
