import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { busyGate, rateOf, waitWhileBusy } from '../../../../lib/concurrency/busy-gate.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('busyGate', () => {
  /** Starts n passes, recording the order in which they get through. */
  function passes(pass: () => Promise<void>, n: number, from = 0) {
    const through: number[] = [];
    for (let i = from; i < from + n; i++) void pass().then(() => through.push(i));
    return through;
  }

  it('lets everyone through at once while not busy', async () => {
    const pass = busyGate(() => false, 20);
    const through = passes(pass, 50);
    await vi.advanceTimersByTimeAsync(0);
    expect(through).toHaveLength(50);
  });

  it('lets one through per interval while busy, in the order they came', async () => {
    const pass = busyGate(() => true, 20); // one every 50 ms
    const through = passes(pass, 10);
    await vi.advanceTimersByTimeAsync(49);
    expect(through).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(through).toEqual([0]);
    await vi.advanceTimersByTimeAsync(100);
    expect(through).toEqual([0, 1, 2]);
    // Later arrivals queue behind, whatever their number.
    const later = passes(pass, 5, 10);
    await vi.advanceTimersByTimeAsync(1000);
    expect([...through, ...later]).toEqual([...Array(15).keys()]);
  });

  it('leaves no queue of turns behind a burst: once not busy, every waiter goes, and so do newcomers', async () => {
    let busy = true;
    const pass = busyGate(() => busy, 20);
    const through = passes(pass, 400); // 20 s worth of turns at the busy rate
    await vi.advanceTimersByTimeAsync(100);
    expect(through).toHaveLength(2);
    busy = false;
    await vi.advanceTimersByTimeAsync(50);
    expect(through).toHaveLength(400);
    const after = passes(pass, 3, 400);
    await vi.advanceTimersByTimeAsync(0);
    expect(after).toEqual([400, 401, 402]);
  });

  it('lets work through when it cannot tell whether it is busy', async () => {
    const pass = busyGate(() => Promise.reject(new Error('no metrics')), 20);
    const through = passes(pass, 3);
    await vi.advanceTimersByTimeAsync(0);
    expect(through).toEqual([0, 1, 2]);
  });
});

describe('waitWhileBusy', () => {
  /** When the wait ended, in ms from its start (undefined while it waits). */
  function waited(busy: () => boolean | Promise<boolean>, maxMs: number, everyMs: number) {
    const start = performance.now();
    const out: { ms?: number } = {};
    void waitWhileBusy(busy, maxMs, everyMs).then(() => (out.ms = performance.now() - start));
    return out;
  }

  it('ends at once when not busy, or when busy() fails', async () => {
    const idle = waited(() => false, 10_000, 500);
    const failing = waited(() => Promise.reject(new Error('no metrics')), 10_000, 500);
    await vi.advanceTimersByTimeAsync(0);
    expect(idle.ms).toBe(0);
    expect(failing.ms).toBe(0);
  });

  it('ends at the first check that finds it no longer busy', async () => {
    let busy = true;
    const wait = waited(() => busy, 10_000, 500);
    await vi.advanceTimersByTimeAsync(1_200);
    expect(wait.ms).toBeUndefined();
    busy = false;
    await vi.advanceTimersByTimeAsync(300); // the check at 1,500 ms
    expect(wait.ms).toBe(1_500);
  });

  it('ends after maxMs however busy', async () => {
    const wait = waited(() => true, 2_250, 500);
    await vi.advanceTimersByTimeAsync(2_249);
    expect(wait.ms).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(wait.ms).toBe(2_250);
  });
});

describe('rateOf', () => {
  it('measures over a fresh window when its last reading is stale, and shares one reading among callers', async () => {
    let counter = 0;
    let reads = 0;
    const count = async () => {
      reads += 1;
      return counter;
    };
    const rate = rateOf(count, { now: () => Date.now() });
    // A burst that begins after a quiet hour: the rate is the burst's, not the hour's average.
    vi.setSystemTime(3_600_000);
    const asked = Promise.all(Array.from({ length: 10 }, () => rate()));
    await vi.advanceTimersByTimeAsync(0);
    counter += 100; // stored during the 200 ms window
    await vi.advanceTimersByTimeAsync(200);
    expect(await asked).toEqual(Array(10).fill(500));
    expect(reads).toBe(2);
    // Within the window: the last figure, no reading.
    await vi.advanceTimersByTimeAsync(100);
    expect(await rate()).toBe(500);
    expect(reads).toBe(2);
    // Next window: one reading against the last.
    counter += 20;
    await vi.advanceTimersByTimeAsync(100);
    expect(await rate()).toBe(100);
    expect(reads).toBe(3);
  });

  it(
    'never counts all that came before its first reading, and answers callers during a measurement with its ' +
      'result',
    async () => {
      let counter = 1_000_000; // stored before this process started
      const rate = rateOf(async () => counter, { now: () => Date.now() });
      vi.setSystemTime(500); // soon after start: still a first reading
      const first = rate();
      await vi.advanceTimersByTimeAsync(100);
      counter += 10;
      const meanwhile = rate(); // asked while the window is being measured
      await vi.advanceTimersByTimeAsync(100);
      expect(await first).toBe(50);
      expect(await meanwhile).toBe(50);
    },
  );
});
