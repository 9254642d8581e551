import type { Middleware } from 'koa';
import { AppError } from '../../lib/errors.ts';
import { temporalOutage } from '../../lib/temporal/jobs.ts';
import type { Logger } from '../../lib/log.ts';
import { settleUnreadBody } from '../read-body.ts';

/** The one error shape of ARCHITECTURE.md, for every failure. Stack traces go to the log, never to the body. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      // Routers answer 404, 405 and 501 without a body; give those the error shape too. A method the
      // router does not know at all (TRACE, QUERY, ...) is as much not allowed here as one it knows:
      // 405 with the Allow the router set, not a 501 logged as our failure.
      if (ctx.status >= 400 && ctx.body == null) {
        const status = ctx.status === 501 ? (ctx.response.get('Allow') ? 405 : 404) : ctx.status;
        throw AppError.ofStatus(status, status === 404 ? `No route for ${ctx.method} ${ctx.path}` : `${ctx.method} is not allowed on ${ctx.path}`);
      }
    } catch (err) {
      const appError = toAppError(err);
      if (appError.status >= 500) logger.error({ err, method: ctx.method, path: ctx.path }, 'request failed');
      ctx.set(appError.headers);
      ctx.set(settleUnreadBody(ctx.req));
      ctx.status = appError.status;
      ctx.body = errorBody(appError);
    }
  };
}

/** The error body: the contract's fields, plus `error_code`, the stable name a client can test (lib/errors.ts). */
export function errorBody(error: AppError) {
  return { success: false, error: error.reason, code: error.status, error_code: error.code, message: error.message };
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const outage = temporalOutage(err);
  if (outage) return outage;
  // Errors raised by Koa and its body readers (http-errors) carry an `expose`d 4xx status.
  const e = err as { status?: number; expose?: boolean; message?: string; type?: string };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    return AppError.ofStatus(e.status, e.message ?? 'Bad request');
  }
  return new AppError('internal', 'Internal server error');
}
