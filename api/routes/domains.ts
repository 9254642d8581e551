import Router from '@koa/router';
import { domainOperations as ops } from '../../contract/domains.ts';
import type { Services } from '../services/index.ts';
import { serve, type V1Router } from './serve.ts';

/** Domain registration lookups: one name, or many as a workflow. */
export function domainRoutes({ domains }: Pick<Services, 'domains'>): V1Router {
  const router: V1Router = new Router();
  serve(router, ops.whois, (_ctx, { query }) => domains.whois(query));
  serve(router, ops.bulk, (ctx, { body }) => domains.bulk(body, ctx.state.account.userId));
  serve(router, ops.bulkByQuery, (ctx, { query }) => domains.bulk(query, ctx.state.account.userId));
  return router;
}
