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
  return {
    /** A slot for one more live stream of the account, or 429 when the plan's are all open. */
    async open(account: { userId: number; plan: Plan }): Promise<StreamLease> {
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
    },
  };
}

export type StreamService = ReturnType<typeof streamService>;
