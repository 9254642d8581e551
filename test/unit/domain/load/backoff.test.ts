// After a connection error a user rests before trying again, 100 ms doubling to 1 s (±20 %), and an
// answered request starts it over; a shard's rests end with its window and can all be cancelled. Against
// a closed loopback port, a generator's users make a handful of attempts a second, not thousands, and
// none of them counts as a request the target got.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BACKOFF_FIRST_MS,
  BACKOFF_JITTER,
  BACKOFF_MAX_MS,
  ConnectBackoff,
  Rests,
} from '../../../../domain/load/backoff.ts';
import { ShardGenerator, type ShardPlan } from '../../../../domain/load/generator.ts';
import { startLoadTarget } from '../../../fixtures/load-target.ts';
import { closedPort } from '../../../support/processes.ts';
import { shardPlan } from '../../../support/shard-plan.ts';

const middle = () => 0.5; // no jitter: the nominal waits

describe('ConnectBackoff', () => {
  it('waits 100 ms, doubling with each error in a row, up to 1 s; an answered request starts it over', () => {
    const b = new ConnectBackoff(middle);
    expect(Array.from({ length: 7 }, () => b.next())).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
    b.reset();
    expect(b.next()).toBe(BACKOFF_FIRST_MS);
  });

  it('draws each wait within ±20 % of its nominal value', () => {
    expect(new ConnectBackoff(() => 0).next()).toBe(BACKOFF_FIRST_MS * (1 - BACKOFF_JITTER));
    const high = new ConnectBackoff(() => 0.999_999);
    for (let i = 0; i < 6; i++) high.next();
    expect(high.next()).toBe(Math.round(BACKOFF_MAX_MS * (1 + BACKOFF_JITTER)));
  });
});

describe('Rests', () => {
  afterEach(() => vi.useRealTimers());

  it('lets an attempt the target got go on at once, and runs what follows a connection error after its rest', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const rests = new Rests<string>(() => 60_000, middle);
    const after: string[] = [];
    expect(rests.settle('a', true, () => after.push('never'))).toBe(true);
    expect(rests.settle('a', false, () => after.push('a1'))).toBe(false);
    vi.advanceTimersByTime(99);
    expect(after).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(after).toEqual(['a1']);
    // Each key has its own backoff: a's second error in a row rests 200 ms, b's first 100 ms.
    rests.settle('a', false, () => after.push('a2'));
    rests.settle('b', false, () => after.push('b1'));
    vi.advanceTimersByTime(100);
    expect(after).toEqual(['a1', 'b1']);
    vi.advanceTimersByTime(100);
    expect(after).toEqual(['a1', 'b1', 'a2']);
  });

  it('ends a rest just past the window, and cancels every rest at once, saying how many', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let left = 29.5;
    const rests = new Rests<number>(() => left, middle);
    const after: number[] = [];
    rests.settle(1, false, () => after.push(1));
    // Timers run on whole milliseconds: the rest wakes at 31, past the window's end at 29.5, never at it.
    vi.advanceTimersByTime(30);
    expect(after).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(after).toEqual([1]);
    left = 10_000;
    rests.settle(1, false, () => after.push(2));
    rests.settle(2, false, () => after.push(3));
    expect(rests.cancel()).toBe(2);
    vi.advanceTimersByTime(10_000);
    expect(after).toEqual([1]);
  });
});

/** The shard plan of the tests, starting now, with requests timing out after 1 s. */
function plan(url: string, users: number, ms: number, rate = 0): ShardPlan {
  const startAt = Date.now();
  return shardPlan(url, users, ms, { startAt, endAt: startAt + ms, rate, requestTimeoutMs: 1000 });
}

describe('a generator against a closed port', () => {
  it('rests each user after each refused connection: a few attempts a second, none counted as a request', async () => {
    const users = 2;
    const result = await (
      await ShardGenerator.create(plan(`http://127.0.0.1:${await closedPort()}/`, users, 3000))
    ).run();
    const attempts = result.connectionErrors!;
    // Without a rest two users made about 20,000 attempts a second here; with it each makes its first
    // at 0 and rests 0.1, 0.2, 0.4, 0.8, 1, 1 s (±20 %): at most 7 attempts in 3 s.
    expect(attempts).toBeGreaterThanOrEqual(users * 4);
    expect(attempts).toBeLessThanOrEqual(users * 7);
    expect(result.errors).toEqual({ ECONNREFUSED: attempts });
    expect(result).toMatchObject({ total: 0, successful: 0, failed: 0, latencySumUs: 0 });
    // The seconds' figures hold no request either: the attempts are counted apart.
    const seconds = result.newSeconds ?? [];
    expect(seconds.reduce((n, s) => n + s.sent, 0)).toBe(0);
    expect(seconds.reduce((n, s) => n + (s.connectionErrors ?? 0), 0)).toBe(attempts);
  });

  it('rests an open model connection too: the arrivals due meanwhile wait or drop', async () => {
    const result = await (
      await ShardGenerator.create(plan(`http://127.0.0.1:${await closedPort()}/`, 2, 2000, 200))
    ).run();
    expect(result.connectionErrors).toBeLessThanOrEqual(2 * 6);
    expect(result.connectionErrors! + result.dropped).toBeGreaterThan(300);
    expect(result.total).toBe(0);
  });

  it('starts the rest over once the target answers: a live target is never held back', async () => {
    const site = await startLoadTarget();
    try {
      const result = await (await ShardGenerator.create(plan(`${site.url}/live`, 1, 500))).run();
      expect(result.connectionErrors).toBe(0);
      expect(result.total).toBe(site.count('/live'));
      expect(result.total).toBeGreaterThan(50);
    } finally {
      await site.close();
    }
  });
});
