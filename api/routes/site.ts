// REST twins of the MCP site tools, for API-key users: POST /api/v1/site/discover and /site/audit.
import Router from '@koa/router';
import { siteOperations as ops } from '../../contract/site.ts';
import type { Services } from '../services/index.ts';
import { serve, type V1Router } from './serve.ts';

export function siteRoutes({ site }: Pick<Services, 'site'>): V1Router {
  const router: V1Router = new Router();
  serve(router, ops.discover, async (ctx, { body }) => ({
    success: true,
    ...(await site.discover(body, ctx.state.account.userId)),
  }));
  serve(router, ops.audit, async (ctx, { body }) => ({
    success: true,
    ...(await site.audit(body, ctx.state.account.userId)),
  }));
  return router;
}
