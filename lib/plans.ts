// What each plan allows: the request limits of the contract (spec/interface.md, "Limits") and the
// bounds that keep one user from taking a public instance for themselves. docs/api.md's "Plans"
// table is this one. Over a rate or concurrency bound the answer is 429 (Retry-After where known);
// over a count bound (webhooks owned, a load test's size) 403; both name the limit.
/** The longest load test on any plan, in seconds (its duration, or its stages' total). */
export const MAX_TEST_SECONDS = 3600;

export const PLANS = ['free', 'pro', 'enterprise'] as const;
const MiB = 1024 * 1024;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  /** Requests per minute and per day, every door together (REST, MCP, dashboard actions). */
  perMinute: number;
  perDay: number;
  /** Live streams (Server-Sent Events) open at once, over every door. */
  liveStreams: number;
  /** Webhooks owned at once, and the captures each may take per minute (past it: 429 to the sender, nothing stored). */
  webhooks: number;
  capturesPerMinute: number;
  /**
   * Milliseconds a minute the user's response rules may run in one API process (on its request thread),
   * all of their webhooks together; past it their captures that have rules to run get 429, nothing stored.
   */
  ruleMsPerMinute: number;
  /**
   * Bytes of captured bodies kept over all of a user's webhooks (as stored: binary bodies in base64); past it the
   * oldest go.
   */
  captureBytes: number;
  /**
   * The most captures one webhook may keep, and for how many days (a webhook keeps 500 unless its owner asks for more).
   */
  capturesKept: number;
  captureDays: number;
  /** Webhooks that forward their captures at once (forward_url set). */
  forwardingWebhooks: number;
  /** Load tests pending or running at once, and the size of each. */
  loadTestsAtOnce: number;
  loadTestUsers: number;
  loadTestSeconds: number;
  /** Video jobs open at once: from their start until they end (downloaded, failed, expired, cancelled). */
  videoJobsAtOnce: number;
}

export const PLAN_LIMITS: Readonly<Record<Plan, PlanLimits>> = {
  free: {
    perMinute: 10,
    perDay: 100,
    liveStreams: 2,
    webhooks: 5,
    capturesPerMinute: 60,
    ruleMsPerMinute: 1_000,
    captureBytes: 10 * MiB,
    capturesKept: 1_000,
    captureDays: 7,
    forwardingWebhooks: 2,
    loadTestsAtOnce: 1,
    loadTestUsers: 50,
    loadTestSeconds: 300,
    videoJobsAtOnce: 1,
  },
  pro: {
    perMinute: 100,
    perDay: 10_000,
    liveStreams: 10,
    webhooks: 50,
    capturesPerMinute: 600,
    ruleMsPerMinute: 5_000,
    captureBytes: 250 * MiB,
    capturesKept: 10_000,
    captureDays: 30,
    forwardingWebhooks: 20,
    loadTestsAtOnce: 5,
    loadTestUsers: 1_000,
    loadTestSeconds: 3_600,
    videoJobsAtOnce: 3,
  },
  enterprise: {
    perMinute: 3_000,
    perDay: 10_000,
    liveStreams: 50,
    webhooks: 1_000,
    capturesPerMinute: 6_000,
    ruleMsPerMinute: 15_000,
    captureBytes: 2048 * MiB,
    capturesKept: 10_000,
    captureDays: 30,
    forwardingWebhooks: 200,
    loadTestsAtOnce: 20,
    loadTestUsers: 10_000,
    loadTestSeconds: 3_600,
    videoJobsAtOnce: 10,
  },
};

/** How often an MCP client is told to poll a task (its `pollInterval`). */
export const TASK_POLL_MS = 2000;

/**
 * MCP task reads a minute (tasks/get, tasks/list, tasks/result, tasks/cancel) that spend no request:
 * enough to poll every load test and wait the plan runs at once at the advertised interval.
 */
export const taskReadsPerMinute = (plan: Plan) =>
  ((PLAN_LIMITS[plan].loadTestsAtOnce + PLAN_LIMITS[plan].liveStreams) * 60_000) / TASK_POLL_MS;

/** Captured requests a webhook keeps unless its owner sets more (its `retention`); the oldest go beyond it. */
export const CAPTURE_KEEP_PER_WEBHOOK = 500;

/**
 * The bodies one page of captures carries at most (a listing, an export's read, at least one capture a
 * page): 500 bodies of 1 MiB would hold half a gigabyte for one answer, as long as its reader stalls.
 */
export const CAPTURE_PAGE_BODY_BYTES = 8 * MiB;

/** What a webhook keeps when its owner set nothing, by plan: 500 captures, for as long as the plan allows. */
export const DEFAULT_RETENTION = Object.fromEntries(
  PLANS.map((plan) => [
    plan,
    {
      max_requests: Math.min(CAPTURE_KEEP_PER_WEBHOOK, PLAN_LIMITS[plan].capturesKept),
      max_age_days: PLAN_LIMITS[plan].captureDays,
    },
  ]),
) as Readonly<Record<Plan, { max_requests: number; max_age_days: number }>>;
export const defaultRetention = (plan: Plan) => DEFAULT_RETENTION[plan];

/**
 * What a webhook keeps in effect: its own retention (either field missing: the default) within its owner's plan now.
 */
export function effectiveRetention(
  plan: Plan,
  own: Partial<{ max_requests: number; max_age_days: number }> | null,
): { max_requests: number; max_age_days: number } {
  const d = DEFAULT_RETENTION[plan];
  const limits = PLAN_LIMITS[plan];
  return {
    max_requests: Math.min(own?.max_requests ?? d.max_requests, limits.capturesKept),
    max_age_days: Math.min(own?.max_age_days ?? d.max_age_days, limits.captureDays),
  };
}

/** The most a webhook may keep, by plan (what retention is capped to, after a downgrade too). */
export const RETENTION_CAPS = Object.fromEntries(
  PLANS.map((plan) => [
    plan,
    { max_requests: PLAN_LIMITS[plan].capturesKept, max_age_days: PLAN_LIMITS[plan].captureDays },
  ]),
) as Readonly<Record<Plan, { max_requests: number; max_age_days: number }>>;
