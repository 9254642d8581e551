import type { Middleware } from 'koa';
import type { KvStore, QuotaState } from '../../lib/kv/index.ts';
import { PLAN_LIMITS, planWindows } from '../../lib/plans.ts';
import { RateLimitedError } from '../../lib/errors.ts';
import type { AuthState } from './auth.ts';
import { processMetrics } from '../../lib/metrics.ts';

/**
 * Per-plan limits (per minute and per day), counted per user in the shared store so that every API
 * process enforces one limit. Headers follow the IETF RateLimit header fields draft: the window
 * closest to running out is the one reported, and RateLimit-Policy lists both.
 */
export function rateLimit(kv: KvStore): Middleware<AuthState> {
  return async (ctx, next) => {
    const { userId, plan } = ctx.state.account;
    const windows = planWindows(userId, plan);
    const result = await kv.consume(windows);
    const limits = PLAN_LIMITS[plan];
    const shown = tightest(result.windows);
    ctx.set({
      'RateLimit-Policy': `${limits.perMinute};w=60, ${limits.perDay};w=86400`,
      'RateLimit-Limit': String(shown.limit),
      'RateLimit-Remaining': String(shown.remaining),
      'RateLimit-Reset': String(shown.resetSeconds),
    });
    if (!result.allowed) {
      processMetrics().rateLimited.inc({ plan });
      const full = result.windows.flatMap((w, i) => (w.remaining === 0 ? [{ ...w, per: PER[windows[i]!.windowSeconds] }] : []));
      const retryAfter = Math.max(...full.map((w) => w.resetSeconds));
      const which = full.map((w) => `${w.limit} requests per ${w.per}`).join(' and ');
      throw new RateLimitedError(`Rate limit of the ${plan} plan reached (${which}); retry after ${retryAfter} s`, retryAfter);
    }
    return next();
  };
}

const PER: Record<number, string> = { 60: 'minute', 86_400: 'day' };

function tightest(windows: QuotaState[]): QuotaState {
  return windows.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a));
}
