import Router from '@koa/router';
import { diagnosticsOperations as ops } from '../../contract/diagnostics.ts';
import type { Services } from '../services/index.ts';
import { serve, type V1Router } from './serve.ts';

/** Pipeline checks: a workflow that asks every activity pool for a live worker. */
export function diagnosticsRoutes({ diagnostics }: Pick<Services, 'diagnostics'>): V1Router {
  const router: V1Router = new Router();
  serve(router, ops.start, (ctx) => diagnostics.startCheck(ctx.state.account.userId));
  serve(router, ops.state, (ctx, { params }) => diagnostics.checkState(params.check_id, ctx.state.account.userId));
  return router;
}
