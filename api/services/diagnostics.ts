// Pipeline checks: a workflow that asks every activity pool for a live worker (the job template).
import type { Client } from '@temporalio/client';
import { NotFoundError } from '../../lib/errors.ts';
import { findOwnedJob, readJobState, startJob } from '../../lib/temporal/jobs.ts';
import {
  getPipelineCheckState,
  PIPELINE_CHECK_KIND,
  type PipelineCheckState,
  type PoolResult,
} from '../../lib/jobs/pipeline-check.ts';

export function diagnosticsService({ temporal }: { temporal: Client }) {
  return {
    async startCheck(ownerId: number) {
      const { publicId } = await startJob(temporal, {
        kind: PIPELINE_CHECK_KIND,
        ownerId,
        workflow: 'pipelineCheck',
        args: [],
      });
      return {
        success: true,
        check_id: publicId,
        status: 'running',
        message: 'Pipeline check started: poll its status',
      };
    },
    async checkState(checkId: string, ownerId: number) {
      const handle = await findOwnedJob(temporal, PIPELINE_CHECK_KIND, checkId, ownerId);
      if (!handle) throw new NotFoundError(`No pipeline check ${checkId} among yours`);
      const state: PipelineCheckState = await readJobState(handle, getPipelineCheckState);
      return {
        success: true,
        check_id: checkId,
        status: state.status,
        started_at: state.startedAt,
        completed_at: state.completedAt,
        pools: Object.fromEntries(Object.entries(state.pools).map(([pool, result]) => [pool, poolJson(result)])),
      };
    },
  };
}

function poolJson(result: PoolResult) {
  if (result.status !== 'ok') return result;
  const { hostname, pid, answeredAt, requestId } = result.worker;
  return { status: result.status, worker: { hostname, pid, answered_at: answeredAt, request_id: requestId ?? null } };
}

export type DiagnosticsService = ReturnType<typeof diagnosticsService>;
