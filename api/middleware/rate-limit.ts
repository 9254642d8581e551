import type { Middleware } from 'koa';
import type { QuotaService } from '../services/quota.ts';
import type { AuthState } from './auth.ts';

/**
 * Per-plan limits (per minute and per day) on /api/v1. Headers follow the IETF RateLimit header
 * fields draft: the window closest to running out is the one reported, and RateLimit-Policy lists both.
 */
export function rateLimit(quota: QuotaService): Middleware<AuthState> {
  return async (ctx, next) => {
    const { plan } = ctx.state.account;
    const verdict = await quota.spend(ctx.state.account);
    const limits = quota.policy(plan);
    ctx.set({
      'RateLimit-Policy': `${limits.perMinute};w=60, ${limits.perDay};w=86400`,
      'RateLimit-Limit': String(verdict.tightest.limit),
      'RateLimit-Remaining': String(verdict.tightest.remaining),
      'RateLimit-Reset': String(verdict.tightest.resetSeconds),
    });
    if (!verdict.allowed) throw quota.refusal(plan, verdict);
    return next();
  };
}
