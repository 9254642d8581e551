// Live streams and waits for a capture are bounded per user by plan, over every door (REST, MCP, the
// dashboard): each holds one of the user's slots while it lives (lib/concurrency/stream-slots.ts).
import { randomUUID } from 'node:crypto';
import { RateLimitedError } from '../../lib/errors.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { PLAN_LIMITS, type Plan } from '../../lib/plans.ts';
import { holding, LEASE_TTL_SECONDS, streamSlot, type StreamLease } from '../../lib/concurrency/stream-slots.ts';

export type { StreamLease };

export function streamService({ kv }: { kv: KvStore }) {
  /**
   * A slot for one more live stream of the account, or 429 when the plan's are all open. `holder`
   * names it (a job that keeps it elsewhere renews and frees it by that name); by default, a new one.
   */
  async function open(account: { userId: number; plan: Plan }, holder: string = randomUUID()): Promise<StreamLease> {
    const limit = PLAN_LIMITS[account.plan].liveStreams;
    const lease = streamSlot(kv, account.userId, holder, limit);
    if (!(await lease.renew())) {
      throw new RateLimitedError(
        `At most ${limit} live streams at once on the ${account.plan} plan: close one of yours first`,
        LEASE_TTL_SECONDS,
      );
    }
    return lease;
  }
  return {
    open,
    /** Frees the slot `holder` holds (a job's, ended or cancelled), if it holds one. */
    release: (userId: number, holder: string) => streamSlot(kv, userId, holder, 0).release(),
    /**
     * Runs `work` holding one of the account's slots (429 when none is free): renewed while it runs,
     * freed when it ends; `lost` aborts if the slot was lost meanwhile (the store forgot it and it is full).
     */
    async hold<T>(account: { userId: number; plan: Plan }, work: (lost: AbortSignal) => Promise<T>): Promise<T> {
      return holding(await open(account), work);
    },
    /**
     * Runs `work` (an MCP client's tasks/result waiting for its task's end) holding one of the account's
     * slots for such waits: as many as its live streams, counted apart from them (a wait's task may hold
     * a stream slot itself); 429 when they are all taken.
     */
    async holdTaskWait<T>(
      account: { userId: number; plan: Plan },
      work: (lost: AbortSignal) => Promise<T>,
    ): Promise<T> {
      const limit = PLAN_LIMITS[account.plan].liveStreams;
      const lease = streamSlot(kv, account.userId, randomUUID(), limit, 'task-results');
      if (!(await lease.renew()))
        throw new RateLimitedError(
          `At most ${limit} tasks/result calls waiting at once on the ${account.plan} plan: wait for one to ` +
            'answer, or poll with tasks/get',
          LEASE_TTL_SECONDS,
        );
      return holding(lease, work);
    },
  };
}

export type StreamService = ReturnType<typeof streamService>;
