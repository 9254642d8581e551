import type { Middleware } from 'koa';
import { AppError, DependencyUnavailableError, JobTimeoutError } from '../../lib/errors.ts';
import { temporalOutage } from '../../lib/temporal/jobs.ts';
import type { Logger } from '../../lib/log.ts';
import { html, sendPage } from '../pages/html.ts';
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
        throw AppError.ofStatus(
          status,
          status === 404 ? `No route for ${ctx.method} ${ctx.path}` : `${ctx.method} is not allowed on ${ctx.path}`,
        );
      }
    } catch (err) {
      const appError = toAppError(err);
      logFailure(logger, appError, err, { method: ctx.method, path: ctx.path });
      ctx.set(appError.headers);
      ctx.set(settleUnreadBody(ctx.req));
      // A person at the dashboard or signing in gets a page saying what happened, not the JSON shape.
      if (/^\/(dashboard|oauth\/interaction)(\/|$)/.test(ctx.path) && ctx.accepts('json', 'html') === 'html') {
        const again =
          appError.headers['Retry-After'] && ctx.method === 'GET'
            ? html`<a href="${ctx.originalUrl}">Try again</a> · `
            : '';
        return sendPage(
          ctx,
          `${appError.reason} · netops`,
          html`<h1>${appError.reason}</h1><p>${appError.message}</p><p>${again}<a href="/dashboard">Dashboard</a></p>`,
          appError.status,
        );
      }
      ctx.status = appError.status;
      ctx.body = errorBody(appError);
    }
  };
}

/**
 * Our failures at `error` with their stack; a user's target that failed at `info`, without it; a
 * dependency's outage at `warn`, without it, once a second at most per dependency (hundreds of
 * requests a second meet the same outage).
 */
export function logFailure(logger: Logger, appError: AppError, err: unknown, context: Record<string, unknown>): void {
  if (appError.status < 500) return;
  // A user's target that failed or did not answer (unreachable, a 404 page, a timeout) is theirs, not
  // ours: a line without a stack; our own failures stay errors with theirs.
  if (appError.code === 'upstream_failed' || (appError.code === 'timeout' && !(appError instanceof JobTimeoutError)))
    return void logger.info({ error_code: appError.code, message: appError.message, ...context }, 'an upstream failed');
  if (!(appError instanceof DependencyUnavailableError))
    return void logger.error({ err, ...context }, 'request failed');
  const now = Date.now();
  if (now - (lastOutageLog.get(appError.dependency) ?? 0) < 1000) return;
  lastOutageLog.set(appError.dependency, now);
  logger.warn(
    {
      dependency: appError.dependency,
      cause: String((appError.cause as Error)?.message ?? appError.cause),
      ...context,
    },
    'a dependency is unavailable: answered 503',
  );
}
const lastOutageLog = new Map<string, number>();

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
