import { EventEmitter } from 'node:events';
import { windowState, type KvStore, type QuotaResult, type QuotaState, type QuotaWindow } from './kv-store.ts';
import type { LeaseResult } from './kv-store.ts';

interface Entry {
  value: string;
  expiresAt: number; // ms since epoch; Infinity when it never expires
}

/** In-process store for the embedded mode: one process, so atomicity is JavaScript's run-to-completion. */
export class MemoryKvStore implements KvStore {
  readonly kind = 'memory' as const;
  readonly #entries = new Map<string, Entry>();
  /** Leased slots: key -> holder -> expiry (ms). */
  readonly #leases = new Map<string, Map<string, number>>();
  readonly #channels = new EventEmitter().setMaxListeners(0);
  readonly #sweeper: NodeJS.Timeout;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.#sweeper = setInterval(() => this.#sweep(), 60_000);
    this.#sweeper.unref();
  }

  async get(key: string): Promise<string | null> {
    return this.#live(key)?.value ?? null;
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    this.#entries.set(key, { value, expiresAt: this.#expiry(ttlSeconds) });
  }

  async setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean> {
    if (this.#live(key)) return false;
    this.#entries.set(key, { value, expiresAt: this.#expiry(ttlSeconds) });
    return true;
  }

  async take(key: string): Promise<string | null> {
    const entry = this.#live(key);
    if (!entry) return null;
    this.#entries.delete(key);
    return entry.value;
  }

  async delete(key: string): Promise<boolean> {
    const existed = this.#live(key) !== undefined;
    this.#entries.delete(key);
    return existed;
  }

  async consume(windows: readonly QuotaWindow[]): Promise<QuotaResult> {
    return this.#count(windows, true);
  }

  async usage(windows: readonly QuotaWindow[]): Promise<QuotaState[]> {
    return (await this.#count(windows, false)).windows;
  }

  async #count(windows: readonly QuotaWindow[], hit: boolean): Promise<QuotaResult> {
    const now = this.#now();
    const slots = windows.map((w) => {
      const windowMs = w.windowSeconds * 1000;
      const key = `${w.key}:${Math.floor(now / windowMs)}`;
      return {
        w,
        key,
        count: Number(this.#live(key)?.value ?? 0),
        expiresAt: (Math.floor(now / windowMs) + 1) * windowMs,
      };
    });
    const allowed = slots.every((s) => s.count < s.w.limit);
    if (allowed && hit) {
      for (const s of slots) {
        s.count += 1;
        this.#entries.set(s.key, { value: String(s.count), expiresAt: s.expiresAt });
      }
    }
    return { allowed, windows: slots.map((s) => windowState(s.w.limit, s.count, s.w.windowSeconds, now)) };
  }

  async lease(key: string, holder: string, limit: number, ttlSeconds: number): Promise<LeaseResult> {
    const now = this.#now();
    const slots = this.#leases.get(key) ?? new Map<string, number>();
    for (const [h, expiresAt] of slots) if (expiresAt <= now) slots.delete(h);
    const granted = slots.has(holder) || slots.size < limit;
    if (granted) slots.set(holder, now + ttlSeconds * 1000);
    if (slots.size > 0) this.#leases.set(key, slots);
    else this.#leases.delete(key);
    return { granted, held: slots.size };
  }

  async pace(key: string, intervalMs: number, maxWaitMs: number): Promise<number | null> {
    const now = this.#now();
    const free = Math.max(now, Number(this.#live(key)?.value ?? 0));
    const wait = free - now;
    if (wait > maxWaitMs) return null;
    this.#entries.set(key, { value: String(free + intervalMs), expiresAt: free + intervalMs + 1000 });
    return wait;
  }

  async release(key: string, holder: string): Promise<void> {
    const slots = this.#leases.get(key);
    slots?.delete(holder);
    if (slots?.size === 0) this.#leases.delete(key);
  }

  async publish(channel: string, message: string): Promise<void> {
    this.#channels.emit(channel, message);
  }

  subscribe(channel: string, listener: (message: string) => void): () => void {
    this.#channels.on(channel, listener);
    return () => void this.#channels.off(channel, listener);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#entries.clear();
    this.#leases.clear();
    this.#channels.removeAllListeners();
  }

  #expiry(ttlSeconds?: number): number {
    return ttlSeconds === undefined ? Infinity : this.#now() + ttlSeconds * 1000;
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
    for (const [key, slots] of this.#leases) {
      for (const [holder, expiresAt] of slots) if (expiresAt <= now) slots.delete(holder);
      if (slots.size === 0) this.#leases.delete(key);
    }
  }
}
