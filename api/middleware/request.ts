// Every request: an id (the caller's `X-Request-Id` when sane, else a new one) echoed in the answer,
// carried to any workflow the request starts (lib/request-context.ts), one log line when it ends, and
// the HTTP metrics by route template (so ids in paths do not explode the label set).
import type { RouterContext } from '@koa/router';
import type { Middleware } from 'koa';
import type { Logger } from '../../lib/log.ts';
import { processMetrics } from '../../lib/metrics.ts';
import { requestIdFrom, withRequest } from '../../lib/request-context.ts';

declare module 'koa' {
  interface DefaultState {
    requestId?: string;
  }
}

export function requestContext(logger: Logger): Middleware {
  const metrics = processMetrics();
  return async (ctx, next) => {
    const requestId = requestIdFrom(ctx.get('x-request-id') || undefined);
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await withRequest({ requestId }, next);
    } finally {
      const seconds = (performance.now() - started) / 1000;
      // @koa/router names the matched route template; paths no router matched share one label.
      const route =
        (ctx as Partial<RouterContext>)._matchedRoute?.toString() ??
        (ctx.respond === false ? ctx.path.split('/').slice(0, 3).join('/') : 'unmatched');
      metrics.httpRequests.inc({ method: ctx.method, route, status: String(ctx.status) });
      metrics.httpDuration.observe({ method: ctx.method, route }, seconds);
      logger.info(
        { requestId, method: ctx.method, route, status: ctx.status, ms: Math.round(seconds * 1000) },
        'request',
      );
    }
  };
}
