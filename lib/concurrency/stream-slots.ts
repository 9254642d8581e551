// Live streams (Server-Sent Events, waits for a capture) are bounded per user by plan, over every door
// and process: each holds a slot of the user's lease in the key-value store, renewed while it lives
// and freed when it ends, so every process counts the same streams, and a process that dies frees its
// slots within LEASE_TTL_SECONDS. The API takes slots (api/services/streams.ts); a wait that runs as
// a job keeps the one the API took for it, from the activity that waits (activities/webhooks/wait.ts).
import type { KvStore } from '../kv/index.ts';

export const LEASE_TTL_SECONDS = 60;

export interface StreamLease {
  /** Keeps the slot (call at least every LEASE_TTL_SECONDS / 2); false when it was lost meanwhile and is full now. */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * `holder`'s slot among the `limit` of `userId` in `pool` (live streams, or MCP clients waiting on
 * tasks/result, counted apart): renew() takes it when free (and keeps it), release() frees it.
 */
export function streamSlot(
  kv: KvStore,
  userId: number,
  holder: string,
  limit: number,
  pool: 'streams' | 'task-results' = 'streams',
): StreamLease {
  const key = `${pool}:${userId}`;
  return {
    renew: async () => (await kv.lease(key, holder, limit, LEASE_TTL_SECONDS)).granted,
    release: () => kv.release(key, holder),
  };
}

/**
 * Runs `work` holding `lease` (already taken): renewed while it runs, freed when it ends; `lost`
 * aborts if the slot was lost meanwhile (the store forgot it and the plan's are all taken now).
 */
export async function holding<T>(lease: StreamLease, work: (lost: AbortSignal) => Promise<T>): Promise<T> {
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
}
