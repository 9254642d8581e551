// The pipeline check (workflows/pipeline-check.ts): it proves that every activity pool has a live worker.
import { defineQuery } from '@temporalio/workflow';
import type { ActivityPool } from './task-queues.ts';
import { defineJobKind } from './job-kind.ts';

export const PIPELINE_CHECK_KIND = 'pipeline-check';

/** What a pool's worker answers (activities/diagnostics). */
export interface WorkerReport {
  pool: ActivityPool;
  hostname: string;
  pid: number;
  answeredAt: string;
  /** The id of the API request behind the job, as this activity received it (null when none). */
  requestId: string | null;
}

export type PoolResult =
  | { status: 'pending' }
  | { status: 'ok'; worker: WorkerReport }
  | { status: 'failed'; reason: string };

export interface PipelineCheckState {
  status: 'running' | 'completed' | 'failed';
  startedAt: string;
  completedAt: string | null;
  pools: Record<ActivityPool, PoolResult>;
}

export type PipelineCheckWorkflow = () => Promise<PipelineCheckState>;
/** Not a task: its answer is REST's (GET /api/diagnostics/pipeline-checks/{check_id}), read while it runs. */
export const PIPELINE_CHECK_JOB = defineJobKind<PipelineCheckWorkflow>()({
  kind: PIPELINE_CHECK_KIND,
  workflow: 'pipelineCheck',
  pools: ['network', 'load', 'media'],
});

export const getPipelineCheckState = defineQuery<PipelineCheckState>('getPipelineCheckState');
