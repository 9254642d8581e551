// A dependency's outage inside the authorization server (its adapter reads the database, its
// registration limit Redis) is a 503 with Retry-After, as on every other door: oidc-provider would
// answer 500 server_error, which tells a client (an MCP client refreshing its token) that something is
// broken for good. JSON endpoints answer OAuth's `temporarily_unavailable`; pages a short page.
import type Provider from 'oidc-provider';
import { DEPENDENCY_RETRY_AFTER_SECONDS, DependencyUnavailableError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import { logFailure } from '../middleware/errors.ts';
import { escapeHtml } from '../pages/html.ts';

/** Registered first, so that it wraps the provider's other pre-middleware and its routes. */
export function answerOutages(provider: Provider, logger: Logger | undefined): void {
  // The provider's routes catch their errors, answer 500 and emit 'server_error' with the request's context.
  const outages = new WeakMap<object, DependencyUnavailableError>();
  provider.on('server_error', (ctx, err) => {
    if (err instanceof DependencyUnavailableError) outages.set(ctx.req, err);
    else logger?.error({ err, path: ctx.path }, 'authorization server failed');
  });
  provider.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof DependencyUnavailableError)) throw err;
      outages.set(ctx.req, err);
    }
    const outage = outages.get(ctx.req);
    if (!outage) return;
    if (logger) logFailure(logger, outage, outage.cause, { path: ctx.path });
    ctx.status = 503;
    ctx.set('Retry-After', String(DEPENDENCY_RETRY_AFTER_SECONDS));
    ctx.set('Cache-Control', 'no-store');
    if (ctx.accepts('json', 'html') === 'html') {
      ctx.type = 'html';
      ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in unavailable</title></head>\
<body><main><h1>Sign-in is unavailable for a moment</h1><p>${escapeHtml(outage.message)}.</p></main></body></html>`;
    } else {
      ctx.body = { error: 'temporarily_unavailable', error_description: outage.message };
    }
  });
}
