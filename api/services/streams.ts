// Live streams (Server-Sent Events) are bounded per user by plan, over every door (REST, dashboard):
// each open stream holds a slot of the user's lease in the key-value store, renewed while it lives
// and freed when it ends, so every API process counts the same streams and a process that dies
// frees its slots within LEASE_TTL_SECONDS.
import { randomUUID } from 'node:crypto';
import { RateLimitedError } from '../../lib/errors.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { PLAN_LIMITS, type Plan } from '../../lib/plans.ts';

export const LEASE_TTL_SECONDS = 60;

export interface StreamLease {
  /** Keeps the slot (call at least every LEASE_TTL_SECONDS / 2); false when it was lost meanwhile and is full now. */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

export function streamService({ kv }: { kv: KvStore }) {
  /** A slot for one more live stream of the account, or 429 when the plan's are all open. */
  async function open(account: { userId: number; plan: Plan }): Promise<StreamLease> {
    const key = `streams:${account.userId}`;
    const holder = randomUUID();
    const limit = PLAN_LIMITS[account.plan].liveStreams;
    const { granted } = await kv.lease(key, holder, limit, LEASE_TTL_SECONDS);
    if (!granted) {
      throw new RateLimitedError(
        `At most ${limit} live streams at once on the ${account.plan} plan: close one of yours first`,
        LEASE_TTL_SECONDS,
      );
    }
    return {
      renew: async () => (await kv.lease(key, holder, limit, LEASE_TTL_SECONDS)).granted,
      release: () => kv.release(key, holder),
    };
  }
  return {
    open,
    /**
     * Runs `work` holding one of the account's slots (429 when none is free): renewed while it runs,
     * freed when it ends; `lost` aborts if the slot was lost meanwhile (the store forgot it and it is full).
     */
    async hold<T>(account: { userId: number; plan: Plan }, work: (lost: AbortSignal) => Promise<T>): Promise<T> {
      const lease = await open(account);
      const lost = new AbortController();
      const renew = setInterval(
        () =>
          lease.renew().then(
            (kept) => kept || lost.abort(),
            () => {}, // the store is away: the slot expires on its own, the work goes on
          ),
        (LEASE_TTL_SECONDS * 1000) / 2,
      );
      try {
        return await work(lost.signal);
      } finally {
        clearInterval(renew);
        await lease.release().catch(() => {});
      }
    },
  };
}

export type StreamService = ReturnType<typeof streamService>;
