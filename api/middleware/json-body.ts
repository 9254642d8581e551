import type { Middleware } from 'koa';
import { InvalidInputError } from '../../lib/errors.ts';
import { readBody } from '../read-body.ts';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body, set by jsonBody(). */
    body?: unknown;
  }
}

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Reads a JSON body into ctx.request.body ({} when empty). Malformed JSON is 400, oversized 413:
 * past JSON_BODY_LIMIT_BYTES, or the larger limit `larger` gives the request's path.
 */
export function jsonBody(larger: Readonly<Record<string, number>> = {}): Middleware {
  return async (ctx, next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'DELETE' || ctx.method === 'OPTIONS')
      return next();
    const path = ctx.path.length > 1 ? ctx.path.replace(/\/$/, '') : ctx.path; // the router takes /start/ as /start
    const limit = Object.hasOwn(larger, path) ? larger[path]! : JSON_BODY_LIMIT_BYTES;
    const text = (await readBody(ctx.req, limit)).toString('utf8');
    let body: unknown = {};
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch (err) {
        throw new InvalidInputError(`Request body is not valid JSON: ${(err as Error).message}`, 'body');
      }
    }
    ctx.request.body = body;
    return next();
  };
}
