// One contract, every key-value store: the in-process store always, Redis when REDIS_URL is set.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryKvStore, RedisKvStore, type KvStore } from '../../lib/kv/index.ts';

const stores: Array<[string, () => KvStore]> = [['memory', () => new MemoryKvStore()]];
if (process.env.REDIS_URL) stores.push(['redis', () => new RedisKvStore(process.env.REDIS_URL!)]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(stores)('key-value store contract (%s)', (_kind, make) => {
  const store = make();
  const k = (name: string) => `test:${randomUUID()}:${name}`;
  afterAll(() => store.close());

  it('sets, gets and deletes', async () => {
    const key = k('a');
    expect(await store.get(key)).toBeNull();
    await store.set(key, 'one');
    expect(await store.get(key)).toBe('one');
    await store.set(key, 'two');
    expect(await store.get(key)).toBe('two');
    expect(await store.delete(key)).toBe(true);
    expect(await store.delete(key)).toBe(false);
    expect(await store.get(key)).toBeNull();
  });

  it('expires values after their TTL', async () => {
    const key = k('ttl');
    await store.set(key, 'v', 0.3);
    expect(await store.get(key)).toBe('v');
    await sleep(450);
    expect(await store.get(key)).toBeNull();
  });

  it('stores only when absent with setIfAbsent', async () => {
    const key = k('nx');
    expect(await store.setIfAbsent(key, 'first', 10)).toBe(true);
    expect(await store.setIfAbsent(key, 'second', 10)).toBe(false);
    expect(await store.get(key)).toBe('first');
  });

  it('gives a value to exactly one of many concurrent takers', async () => {
    const key = k('take');
    await store.set(key, 'token');
    const results = await Promise.all(Array.from({ length: 20 }, () => store.take(key)));
    expect(results.filter((r) => r === 'token')).toHaveLength(1);
    expect(await store.get(key)).toBeNull();
  });

  it('allows exactly `limit` hits in a window and does not count refused ones', async () => {
    const window = { key: k('quota'), limit: 3, windowSeconds: 3600 };
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await store.consume([window]));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false, false]);
    expect(results.map((r) => r.windows[0]!.remaining)).toEqual([2, 1, 0, 0, 0]);
    for (const r of results) {
      expect(r.windows[0]!.limit).toBe(3);
      expect(r.windows[0]!.resetSeconds).toBeGreaterThanOrEqual(1);
      expect(r.windows[0]!.resetSeconds).toBeLessThanOrEqual(3600);
    }
  });

  it('refuses when any window is full, and then counts none', async () => {
    const minute = { key: k('m'), limit: 5, windowSeconds: 60 };
    const day = { key: k('d'), limit: 2, windowSeconds: 86_400 };
    expect((await store.consume([minute, day])).allowed).toBe(true);
    expect((await store.consume([minute, day])).allowed).toBe(true);
    const refused = await store.consume([minute, day]);
    expect(refused.allowed).toBe(false);
    expect(refused.windows.map((w) => w.remaining)).toEqual([3, 0]);
    // The minute window was not charged for the refused hit: 3 more fit in it alone.
    for (let i = 0; i < 3; i++) expect((await store.consume([minute])).allowed).toBe(true);
    expect((await store.consume([minute])).allowed).toBe(false);
  });

  it('reports usage without counting it', async () => {
    const minute = { key: k('u-m'), limit: 5, windowSeconds: 60 };
    const day = { key: k('u-d'), limit: 100, windowSeconds: 86_400 };
    expect((await store.usage([minute, day])).map((w) => w.remaining)).toEqual([5, 100]);
    for (let i = 0; i < 3; i++) await store.consume([minute, day]);
    const seen = await store.usage([minute, day]);
    expect(seen.map((w) => [w.limit, w.remaining])).toEqual([
      [5, 2],
      [100, 97],
    ]);
    expect(seen[0]!.resetSeconds).toBeGreaterThanOrEqual(1);
    expect((await store.usage([minute, day])).map((w) => w.remaining)).toEqual([2, 97]);
    // A full window is reported as such, and still nothing is counted.
    await store.consume([minute]);
    await store.consume([minute]);
    expect((await store.usage([minute]))[0]!.remaining).toBe(0);
    expect((await store.consume([minute])).allowed).toBe(false);
  });

  it('counts exactly under concurrency', async () => {
    const window = { key: k('race'), limit: 10, windowSeconds: 3600 };
    const results = await Promise.all(Array.from({ length: 40 }, () => store.consume([window])));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });

  it('starts a new count in the next window', async () => {
    const window = { key: k('short'), limit: 1, windowSeconds: 1 };
    // Align to the start of a second so both hits land in one window.
    await sleep(1000 - (Date.now() % 1000) + 20);
    expect((await store.consume([window])).allowed).toBe(true);
    expect((await store.consume([window])).allowed).toBe(false);
    await sleep(1000);
    expect((await store.consume([window])).allowed).toBe(true);
  });

  it('leases at most `limit` slots at once, renews a holder, and frees released and expired slots', async () => {
    const key = k('lease');
    expect(await store.lease(key, 'a', 2, 10)).toEqual({ granted: true, held: 1 });
    expect(await store.lease(key, 'b', 2, 0.3)).toEqual({ granted: true, held: 2 });
    expect(await store.lease(key, 'c', 2, 10)).toEqual({ granted: false, held: 2 });
    expect(await store.lease(key, 'a', 2, 10)).toEqual({ granted: true, held: 2 }); // a renewal, not a new slot
    await sleep(450); // b stopped renewing
    expect(await store.lease(key, 'c', 2, 10)).toEqual({ granted: true, held: 2 });
    await store.release(key, 'a');
    await store.release(key, 'nobody');
    expect(await store.lease(key, 'd', 2, 10)).toEqual({ granted: true, held: 2 });
  });

  it('tells subscribers of a channel what is published on it, and stops after unsubscribe', async () => {
    const channel = k('channel');
    const got: string[] = [];
    const stop = store.subscribe(channel, (m) => got.push(m));
    await sleep(100); // a Redis subscription takes a round trip
    await store.publish(channel, 'one');
    await store.publish(k('other-channel'), 'not ours');
    for (let i = 0; i < 20 && got.length < 1; i++) await sleep(50);
    stop();
    await store.publish(channel, 'two');
    await sleep(150);
    expect(got).toEqual(['one']);
  });

  it('paces turns at least the interval apart, and reserves nothing past the longest wait', async () => {
    const key = k('pace');
    const waits = await Promise.all(Array.from({ length: 5 }, () => store.pace(key, 100, 250)));
    // Three turns fit within 250 ms of waiting (0, 100, 200); the other two are refused, not queued.
    const granted = waits.filter((w): w is number => w !== null).sort((a, b) => a - b);
    expect(waits.filter((w) => w === null)).toHaveLength(2);
    expect(granted).toHaveLength(3);
    expect(granted[0]).toBeLessThanOrEqual(5);
    expect(granted[1]! - granted[0]!).toBeGreaterThanOrEqual(80);
    expect(granted[2]! - granted[1]!).toBeGreaterThanOrEqual(80);
    // Refusals reserved nothing: the next free turn is the one after the third.
    const next = await store.pace(key, 100, 1000);
    expect(next).toBeGreaterThan(granted[2]! + 50);
    expect(next).toBeLessThanOrEqual(300);
    // An idle key gives its first turn at once.
    await sleep(450);
    expect(await store.pace(key, 100, 0)).toBe(0);
  });

  it('grants exactly `limit` of many concurrent leases', async () => {
    const key = k('lease-race');
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => store.lease(key, `h${i}`, 5, 10)));
    expect(results.filter((r) => r.granted)).toHaveLength(5);
  });
});

// Two clients of one Redis stand for two API processes.
if (process.env.REDIS_URL) {
  describe('Redis store shared by two clients', () => {
    it('enforces one count between them', async () => {
      const a = new RedisKvStore(process.env.REDIS_URL!);
      const b = new RedisKvStore(process.env.REDIS_URL!);
      try {
        const window = { key: `test:${randomUUID()}:shared`, limit: 4, windowSeconds: 3600 };
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).consume([window])));
        expect(results.filter((r) => r.allowed)).toHaveLength(4);
        // Turns of one pace are shared too: 6 callers in two processes get 6 distinct turns 500 ms apart.
        // A wait counts from when Redis ran the call, and the calls run a few ms apart (more on a busy
        // machine): so waits differ by the interval less that spread, allowed up to 100 ms.
        const pace = `test:${randomUUID()}:pace`;
        const turns = (await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).pace(pace, 500, 5000))))
          .map(Number)
          .sort((x, y) => x - y);
        for (let i = 1; i < turns.length; i++) expect(turns[i]! - turns[i - 1]!).toBeGreaterThanOrEqual(400);
        // What one process publishes, another hears (the live streams' wake-ups).
        const heard: string[] = [];
        const stop = a.subscribe('test:shared-channel', (m) => heard.push(m));
        await sleep(200);
        await b.publish('test:shared-channel', 'webhook-1');
        for (let i = 0; i < 20 && heard.length < 1; i++) await sleep(50);
        stop();
        expect(heard).toEqual(['webhook-1']);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });
}
