// Request limits per plan, from the interface contract (spec/interface.md, "Limits").
import type { QuotaWindow } from './kv/index.ts';

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export const PLAN_LIMITS: Readonly<Record<Plan, { perMinute: number; perDay: number }>> = {
  free: { perMinute: 10, perDay: 100 },
  pro: { perMinute: 100, perDay: 10_000 },
  enterprise: { perMinute: 3_000, perDay: 10_000 },
};

/** The windows one account's requests count against. Limits are per user, whichever key is used. */
export function planWindows(userId: number, plan: Plan): QuotaWindow[] {
  const limits = PLAN_LIMITS[plan];
  return [
    { key: `ratelimit:${userId}:minute`, limit: limits.perMinute, windowSeconds: 60 },
    { key: `ratelimit:${userId}:day`, limit: limits.perDay, windowSeconds: 86_400 },
  ];
}
