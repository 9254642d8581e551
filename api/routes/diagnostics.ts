import Router from '@koa/router';
import { NotFoundError } from '../../lib/errors.ts';
import { findOwnedJob, readJobState, startJob } from '../../lib/temporal/jobs.ts';
import { getPipelineCheckState, PIPELINE_CHECK_KIND, type PipelineCheckState, type PoolResult } from '../../workflows/pipeline-check.ts';
import { TASK_QUEUES } from '../../workflows/task-queues.ts';
import type { ApiDeps } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';

/** Pipeline checks: a workflow that asks every activity pool for a live worker (the job template). */
export function diagnosticsRoutes({ temporal }: ApiDeps): Router<AuthState> {
  const router = new Router<AuthState>({ prefix: '/diagnostics' });

  router.post('/pipeline-checks', async (ctx) => {
    const { publicId } = await startJob(temporal, {
      kind: PIPELINE_CHECK_KIND,
      ownerId: ctx.state.account.userId,
      workflowType: 'pipelineCheck',
      taskQueue: TASK_QUEUES.workflows,
      args: [],
    });
    ctx.status = 202;
    ctx.body = { success: true, check_id: publicId, status: 'running', message: 'Pipeline check started: poll its status' };
  });

  router.get('/pipeline-checks/:check_id', async (ctx) => {
    const checkId = ctx.params.check_id!;
    const handle = await findOwnedJob(temporal, PIPELINE_CHECK_KIND, checkId, ctx.state.account.userId);
    if (!handle) throw new NotFoundError(`No pipeline check ${checkId} among yours`);
    const state: PipelineCheckState = await readJobState(handle, getPipelineCheckState);
    ctx.body = {
      success: true,
      check_id: checkId,
      status: state.status,
      started_at: state.startedAt,
      completed_at: state.completedAt,
      pools: Object.fromEntries(Object.entries(state.pools).map(([pool, result]) => [pool, poolJson(result)])),
    };
  });

  return router;
}

function poolJson(result: PoolResult) {
  if (result.status !== 'ok') return result;
  const { hostname, pid, answeredAt, requestId } = result.worker;
  return { status: result.status, worker: { hostname, pid, answered_at: answeredAt, request_id: requestId ?? null } };
}
