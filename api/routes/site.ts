// REST twins of the MCP site tools, for API-key users: POST /api/v1/site/discover and /site/audit.
import Router from '@koa/router';
import type { ApiDeps } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import { auditInput, discoverInput, siteService } from '../site.ts';
import { validate } from '../validate.ts';

export function siteRoutes(deps: ApiDeps): Router<AuthState> {
  const router = new Router<AuthState>({ prefix: '/site' });
  const site = siteService({ kv: deps.kv, temporal: deps.temporal, allow: deps.config.networkAllow });
  router.post('/discover', async (ctx) => {
    ctx.body = { success: true, ...(await site.discover(validate(discoverInput, ctx.request.body, 'body'), ctx.state.account.userId)) };
  });
  router.post('/audit', async (ctx) => {
    ctx.body = { success: true, ...(await site.audit(validate(auditInput, ctx.request.body, 'body'), ctx.state.account.userId)) };
  });
  return router;
}
