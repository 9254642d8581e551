// Polling clients may send `If-None-Match`: a GET whose JSON answer has not changed since the ETag
// they hold gets 304 with no body (the rate limit still counts it: it is a request all the same).
import { createHash } from 'node:crypto';
import { Stream } from 'node:stream';
import type { Middleware } from 'koa';

export function conditionalGet(): Middleware {
  return async (ctx, next) => {
    await next();
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.status !== 200) return;
    const body: unknown = ctx.body;
    if (!body || typeof body !== 'object' || body instanceof Stream || Buffer.isBuffer(body)) return;
    const etag = `W/"${createHash('sha1').update(JSON.stringify(body)).digest('base64url')}"`;
    ctx.set('ETag', etag);
    // Weak comparison (RFC 9110 13.1.2). The request's Cache-Control is for caches on the way, not
    // for us: fetch() adds `no-cache` to any request with If-None-Match, and the client still asked.
    const opaque = etag.slice(2);
    const sent = ctx
      .get('if-none-match')
      .split(',')
      .map((t) => t.trim());
    if (sent.some((t) => t === '*' || t === etag || t === opaque || t.replace(/^W\//, '') === opaque)) {
      ctx.status = 304;
      ctx.body = null;
    }
  };
}
