// How long one user's response rules may run in one API process. Rules are their owner's programs run
// on the capture path's thread for bodies anyone may send: RE2 bounds one capture's rules (about 50 ms
// at the most on a two-core machine: docs/webhooks.md), and this bounds a user's share of the thread
// over time, so that a user with costly rules and many captures slows their own webhooks, not the
// service. Each user has a bucket of their plan's milliseconds a minute (of the thread's CPU time, so a
// busy machine does not charge them for time it gave to others), refilled continuously; a
// capture's rules may start while some is left (the last one may overdraw it), and once it is spent
// the user's captures that have rules to run are refused until it refills.
import { PLAN_LIMITS, type Plan } from '../plans.ts';

/** Above this many users, the buckets start again full (memory stays bounded). */
const MAX_USERS = 100_000;
const MINUTE_MS = 60_000;

/**
 * This thread's CPU time in milliseconds, any origin (the wall clock where Node cannot tell it): what the
 * rules cost the thread, not the time the machine gave to others meanwhile.
 */
const threadCpuMs =
  typeof process.threadCpuUsage === 'function'
    ? () => {
        const { user, system } = process.threadCpuUsage();
        return (user + system) / 1000;
      }
    : () => performance.now();

export class RuleBudget {
  readonly #now: () => number;
  readonly #cpu: () => number;
  /** Per user: what was left at `at` (ms; may be below 0). */
  readonly #left = new Map<number, { ms: number; at: number }>();

  /**
   * `now`: the clock the buckets refill by (performance.now by default); `cpu`: the one a run's cost is
   * read from (`now` when only it is given, else this thread's CPU time); both in milliseconds, any origin.
   */
  constructor(now?: () => number, cpu?: () => number) {
    this.#now = now ?? (() => performance.now());
    this.#cpu = cpu ?? now ?? threadCpuMs;
  }

  /** Seconds until the user's rules may run again: 0 when they may now. */
  waitSeconds(userId: number, plan: Plan): number {
    const left = this.#leftNow(userId, plan);
    if (left > 0) return 0;
    return Math.max(1, Math.ceil((-left * MINUTE_MS) / PLAN_LIMITS[plan].ruleMsPerMinute / 1000));
  }

  /**
   * Runs `work` (compiling or running the user's rules) and takes the time it took from their bucket;
   * throws `refused(seconds to wait)` instead when their time is spent.
   */
  run<T>(user: { userId: number; plan: Plan }, work: () => T, refused: (waitSeconds: number) => Error): T {
    const wait = this.waitSeconds(user.userId, user.plan);
    if (wait > 0) throw refused(wait);
    const started = this.#cpu();
    try {
      return work();
    } finally {
      this.spend(user.userId, user.plan, Math.max(0, this.#cpu() - started));
    }
  }

  /** Takes `ms` the user's rules ran from their bucket. */
  spend(userId: number, plan: Plan, ms: number): void {
    const left = this.#leftNow(userId, plan) - ms;
    if (this.#left.size >= MAX_USERS && !this.#left.has(userId)) this.#left.clear();
    this.#left.set(userId, { ms: left, at: this.#now() });
  }

  #leftNow(userId: number, plan: Plan): number {
    const perMinute = PLAN_LIMITS[plan].ruleMsPerMinute;
    const entry = this.#left.get(userId);
    if (!entry) return perMinute;
    return Math.min(perMinute, entry.ms + ((this.#now() - entry.at) * perMinute) / MINUTE_MS);
  }
}
