// The plan's request limits, for every door that spends them (REST through api/middleware/rate-limit.ts,
// the MCP tools): counted per user in the shared store, so every API process enforces one limit.
import { RateLimitedError } from '../../lib/errors.ts';
import type { KvStore, QuotaState, QuotaWindow } from '../../lib/kv/index.ts';
import { processMetrics } from '../../lib/metrics.ts';
import { PLAN_LIMITS, type Plan } from '../../lib/plans.ts';

export interface QuotaVerdict {
  allowed: boolean;
  /** The window closest to running out (what RateLimit-* headers report). */
  tightest: QuotaState;
  /** When refused: seconds until every full window has room again, and which limits are full. */
  retryAfterSeconds: number;
  full: string[];
}

const PER: Record<number, string> = { 60: 'minute', 86400: 'day' };

/** The windows one account's requests count against. Limits are per user, whichever key is used. */
function planWindows(userId: number, plan: Plan): QuotaWindow[] {
  const limits = PLAN_LIMITS[plan];
  return [
    { key: `ratelimit:${userId}:minute`, limit: limits.perMinute, windowSeconds: 60 },
    { key: `ratelimit:${userId}:day`, limit: limits.perDay, windowSeconds: 86_400 },
  ];
}

export function quotaService({ kv }: { kv: KvStore }) {
  /** Spends one request of the account's plan. */
  async function spend(account: { userId: number; plan: Plan }): Promise<QuotaVerdict> {
    const windows = planWindows(account.userId, account.plan);
    const result = await kv.consume(windows);
    const fullWindows = result.windows.flatMap((w, i) =>
      w.remaining === 0 ? [{ ...w, per: PER[windows[i]!.windowSeconds] }] : [],
    );
    if (!result.allowed) processMetrics().rateLimited.inc({ plan: account.plan });
    return {
      allowed: result.allowed,
      tightest: result.windows.reduce((a, b) =>
        b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a,
      ),
      retryAfterSeconds: result.allowed ? 0 : Math.max(...fullWindows.map((w) => w.resetSeconds)),
      full: fullWindows.map((w) => `${w.limit} requests per ${w.per}`),
    };
  }
  return {
    spend,
    /**
     * Spends one request unless the account's allowance of `kind` a minute has room (MCP task reads: a
     * client polling its tasks at the advertised interval spends nothing); past it, requests as usual.
     */
    async spendPast(
      account: { userId: number; plan: Plan },
      kind: string,
      perMinute: number,
    ): Promise<QuotaVerdict | null> {
      const free = await kv.consume([
        { key: `allowance:${kind}:${account.userId}`, limit: perMinute, windowSeconds: 60 },
      ]);
      return free.allowed ? null : spend(account);
    },
    /** Where the account's windows stand, without spending anything: [minute, day]. */
    usage: (account: { userId: number; plan: Plan }) => kv.usage(planWindows(account.userId, account.plan)),
    policy: (plan: Plan) => PLAN_LIMITS[plan],
    /** The 429 of a refused request: the plan, the full limits and when to retry. */
    refusal: (plan: Plan, verdict: QuotaVerdict) =>
      new RateLimitedError(
        `Rate limit of the ${plan} plan reached (${verdict.full.join(' and ')}); ` +
          `retry after ${verdict.retryAfterSeconds} s`,
        verdict.retryAfterSeconds,
      ),
  };
}

export type QuotaService = ReturnType<typeof quotaService>;
