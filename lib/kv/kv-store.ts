// The key-value store: Redis when REDIS_URL is set, an in-process map otherwise.
// Both implementations pass the same contract suite (test/contract/kv-store.test.ts).

/** A fixed window counter: at most `limit` hits per `windowSeconds`, windows aligned to the Unix epoch
 * (so a day window resets at 00:00 UTC, a minute window on the minute). */
export interface QuotaWindow {
  key: string;
  limit: number;
  windowSeconds: number;
}

export interface QuotaState {
  limit: number;
  /** Hits still allowed in this window after this call. */
  remaining: number;
  /** Seconds until this window resets (at least 1). */
  resetSeconds: number;
}

export interface QuotaResult {
  /** False when any window was already full; then no window was counted. */
  allowed: boolean;
  windows: QuotaState[];
}

/** A lease's answer: whether `holder` has its slot, and the live slots after the call. */
export interface LeaseResult {
  granted: boolean;
  held: number;
}

export interface KvStore {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  /** Stores `value`; with `ttlSeconds` it disappears after that long. */
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  /** Stores only when the key is absent; true when it stored. */
  setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean>;
  /** Reads and deletes in one step: of two concurrent callers, only one gets the value. */
  take(key: string): Promise<string | null>;
  /** True when something was deleted. */
  delete(key: string): Promise<boolean>;
  /** Counts one hit against every window atomically, or none when any window is full. */
  consume(windows: readonly QuotaWindow[]): Promise<QuotaResult>;
  /** Where each window stands now, counting nothing (for showing a user their usage). */
  usage(windows: readonly QuotaWindow[]): Promise<QuotaState[]>;
  /**
   * Holds one of at most `limit` slots of `key` for `holder` during `ttlSeconds` (a live stream, say);
   * a holder asking again renews its slot. Slots whose holder stopped renewing free themselves, so a
   * process that dies leaks nothing for longer than the TTL. `held` counts the live slots after the call.
   */
  lease(key: string, holder: string, limit: number, ttlSeconds: number): Promise<LeaseResult>;
  /**
   * Reserves the next turn of `key`, turns being at least `intervalMs` apart for every caller of every
   * process (a GCRA schedule on the store's clock): answers how many ms to wait before using it, or
   * null, reserving nothing, when that wait would be longer than `maxWaitMs`.
   */
  pace(key: string, intervalMs: number, maxWaitMs: number): Promise<number | null>;
  /** Frees `holder`'s slot of `key` (nothing when it holds none). */
  release(key: string, holder: string): Promise<void>;
  /** Tells every process's subscribers of `channel` (at most once, no history: a wake-up, not a queue). */
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` with each message published on `channel` from now on; returns the unsubscribe. */
  subscribe(channel: string, listener: (message: string) => void): () => void;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function windowState(limit: number, count: number, windowSeconds: number, nowMs: number): QuotaState {
  const windowMs = windowSeconds * 1000;
  const resetMs = windowMs - (nowMs % windowMs);
  return { limit, remaining: Math.max(0, limit - count), resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
}
