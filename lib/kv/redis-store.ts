import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { atFirstUse } from '../at-first-use.ts';
import { DependencyUnavailableError } from '../errors.ts';
import { windowState, type KvStore, type QuotaResult, type QuotaState, type QuotaWindow } from './kv-store.ts';
import type { LeaseResult } from './kv-store.ts';

// Loaded by the first Redis store, not with this module: a process without Redis does without the
// client's ~4 MB of heap (measured).
const ioredis = atFirstUse<typeof import('ioredis')>('ioredis');

// One round trip, atomic on the server. Windows are numbered from Redis's own clock (TIME), so API
// processes with skewed clocks still count into the same window. Nothing is counted when any window
// is already full, so rejected requests do not eat into the next minute's allowance.
// KEYS: base keys. ARGV: limit1, windowSeconds1, limit2, windowSeconds2, ...
// Returns: allowed (0/1), now in ms, then the count of each window.
const CONSUME_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local keys, counts, ends = {}, {}, {}
local allowed = 1
for i = 1, #KEYS do
  local windowMs = tonumber(ARGV[2 * i]) * 1000
  local index = math.floor(now / windowMs)
  keys[i] = KEYS[i] .. ':' .. index
  ends[i] = (index + 1) * windowMs
  counts[i] = tonumber(redis.call('GET', keys[i]) or '0')
  if counts[i] >= tonumber(ARGV[2 * i - 1]) then allowed = 0 end
end
if allowed == 1 and ARGV[#ARGV] == 'hit' then
  for i = 1, #KEYS do
    counts[i] = redis.call('INCR', keys[i])
    if counts[i] == 1 then redis.call('PEXPIREAT', keys[i], ends[i]) end
  end
end
local out = { allowed, now }
for i = 1, #KEYS do out[#out + 1] = counts[i] end
return out
`;

// Slots of a lease: a sorted set of holders scored by their expiry, on Redis's clock. Expired holders
// leave first; a holder already in the set renews; a new one enters only below the limit.
// KEYS: the set. ARGV: holder, limit, ttl in ms. Returns: granted (0/1), live slots after the call.
const LEASE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local granted = 0
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
  granted = 1
end
return { granted, redis.call('ZCARD', KEYS[1]) }
`;

// Turns of a pace: the key holds the time (ms, Redis's clock) from which the next turn is free.
// KEYS: the key. ARGV: interval ms, max wait ms. Returns: the wait in ms, or -1 (nothing reserved).
const PACE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local free = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
local wait = free - now
if wait > tonumber(ARGV[2]) then return -1 end
redis.call('SET', KEYS[1], free + tonumber(ARGV[1]), 'PX', wait + tonumber(ARGV[1]) + 1000)
return wait
`;

export class RedisKvStore implements KvStore {
  readonly kind = 'redis' as const;
  readonly #redis: Redis;
  /** The connection in subscriber mode (Redis allows nothing else on it), opened at the first subscribe. */
  #subscriber: Redis | undefined;
  readonly #channels = new EventEmitter().setMaxListeners(0);

  constructor(url: string) {
    // Fail calls fast while Redis is down instead of queueing them forever; readiness reports it, and
    // each call that needed it fails as DependencyUnavailableError (503 with Retry-After).
    const { Redis } = ioredis();
    const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    redis.on('error', () => {}); // connection errors surface on the calls that need Redis
    this.#redis = storeCalls(redis);
  }

  async get(key: string): Promise<string | null> {
    return this.#redis.get(key);
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    if (ttlSeconds === undefined) await this.#redis.set(key, value);
    else await this.#redis.set(key, value, 'PX', Math.max(1, Math.round(ttlSeconds * 1000)));
  }

  async setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean> {
    const reply =
      ttlSeconds === undefined
        ? await this.#redis.set(key, value, 'NX')
        : await this.#redis.set(key, value, 'PX', Math.max(1, Math.round(ttlSeconds * 1000)), 'NX');
    return reply === 'OK';
  }

  async take(key: string): Promise<string | null> {
    return this.#redis.getdel(key);
  }

  async delete(key: string): Promise<boolean> {
    return (await this.#redis.del(key)) > 0;
  }

  async consume(windows: readonly QuotaWindow[]): Promise<QuotaResult> {
    return this.#count(windows, true);
  }

  async usage(windows: readonly QuotaWindow[]): Promise<QuotaState[]> {
    return (await this.#count(windows, false)).windows;
  }

  async #count(windows: readonly QuotaWindow[], hit: boolean): Promise<QuotaResult> {
    const args = [...windows.flatMap((w) => [String(w.limit), String(w.windowSeconds)]), hit ? 'hit' : 'peek'];
    const reply = (await this.#redis.eval(
      CONSUME_LUA,
      windows.length,
      ...windows.map((w) => w.key),
      ...args,
    )) as number[];
    const [allowed, now, ...counts] = reply;
    return {
      allowed: allowed === 1,
      windows: windows.map((w, i) => windowState(w.limit, counts[i]!, w.windowSeconds, now!)),
    };
  }

  async lease(key: string, holder: string, limit: number, ttlSeconds: number): Promise<LeaseResult> {
    const [granted, held] = (await this.#redis.eval(
      LEASE_LUA,
      1,
      key,
      holder,
      String(limit),
      String(Math.max(1, Math.round(ttlSeconds * 1000))),
    )) as number[];
    return { granted: granted === 1, held: held! };
  }

  async pace(key: string, intervalMs: number, maxWaitMs: number): Promise<number | null> {
    const wait = (await this.#redis.eval(
      PACE_LUA,
      1,
      key,
      String(Math.ceil(intervalMs)),
      String(Math.floor(maxWaitMs)),
    )) as number;
    return wait < 0 ? null : wait;
  }

  async release(key: string, holder: string): Promise<void> {
    await this.#redis.zrem(key, holder);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#redis.publish(channel, message);
  }

  subscribe(channel: string, listener: (message: string) => void): () => void {
    if (!this.#subscriber) {
      this.#subscriber = this.#redis.duplicate();
      this.#subscriber.on('error', () => {}); // it reconnects and resubscribes by itself
      this.#subscriber.on('message', (ch: string, message: string) => this.#channels.emit(ch, message));
      // After a reconnect, (re)subscribe every channel someone here listens to, whether or not its
      // first SUBSCRIBE got through before the connection dropped.
      this.#subscriber.on('ready', () => {
        const channels = this.#channels.eventNames().map(String);
        if (channels.length > 0) void this.#subscriber?.subscribe(...channels).catch(() => {});
      });
    }
    // One Redis subscription per channel per process; the listeners of this process share it.
    if (this.#channels.listenerCount(channel) === 0) void this.#subscriber.subscribe(channel).catch(() => {});
    this.#channels.on(channel, listener);
    return () => {
      this.#channels.off(channel, listener);
      if (this.#channels.listenerCount(channel) === 0) void this.#subscriber?.unsubscribe(channel).catch(() => {});
    };
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    this.#channels.removeAllListeners();
    await this.#subscriber?.quit().catch(() => this.#subscriber?.disconnect());
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}

/** Redis answers that mean it is away, restarting or not ready: an outage of the store, not our bug. */
const AWAY = new RegExp(
  [
    'Connection is closed',
    "Stream isn't writeable",
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'EHOSTUNREACH',
    '^LOADING',
    '^MASTERDOWN',
    '^TRYAGAIN',
    '^READONLY',
    '^CLUSTERDOWN',
  ].join('|'),
);

export function isStoreAway(err: unknown): boolean {
  const e = err as { name?: string; message?: string } | null;
  return e?.name === 'MaxRetriesPerRequestError' || AWAY.test(String(e?.message ?? ''));
}

/** `redis` whose commands reject with DependencyUnavailableError('store') while Redis is away. */
function storeCalls(redis: Redis): Redis {
  return new Proxy(redis, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (
        typeof value !== 'function' ||
        prop === 'duplicate' ||
        prop === 'on' ||
        prop === 'once' ||
        prop === 'quit' ||
        prop === 'disconnect'
      )
        return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        return result instanceof Promise
          ? result.catch((err: unknown) =>
              Promise.reject(isStoreAway(err) ? new DependencyUnavailableError('store', err) : err),
            )
          : result;
      };
    },
  });
}
