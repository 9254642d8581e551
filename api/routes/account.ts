import Router from '@koa/router';
import { accountOperations as ops } from '../../contract/account.ts';
import type { Services } from '../services/index.ts';
import { serve, type V1Router } from './serve.ts';

/** The caller's own account. */
export function accountRoutes({ accounts }: Pick<Services, 'accounts'>): V1Router {
  const router: V1Router = new Router();
  serve(router, ops.show, async (ctx) => ({ success: true, ...accounts.profile(ctx.state.account) }));
  return router;
}
