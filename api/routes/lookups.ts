import Router from '@koa/router';
import { createClientIp } from '../../lib/net/client-ip.ts';
import { lookupOperations as ops } from '../../contract/lookups.ts';
import type { Services } from '../services/index.ts';
import { serve, type V1Router } from './serve.ts';

/** DNS, IP and HTTP-header lookups, answered in the request. */
export function lookupRoutes({ lookups, config }: Pick<Services, 'lookups' | 'config'>): V1Router {
  const router: V1Router = new Router();
  const clientIp = createClientIp(config.trustedProxies);
  serve(router, ops.dns, async (_ctx, { query }) => ({ success: true, ...(await lookups.dns(query)) }));
  serve(router, ops.ip, async (ctx, { query }) => ({
    success: true,
    ...(await lookups.ip(query.ip || clientIp(ctx.req))),
  }));
  serve(router, ops.headers, async (_ctx, { query }) => ({ success: true, ...(await lookups.headers(query.url)) }));
  return router;
}
