import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { batcher } from '../../../../lib/concurrency/batcher.ts';

describe('batcher', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands on a batch once maxItems wait, and the rest maxWaitMs after the first of it came', async () => {
    const batches: number[][] = [];
    const b = batcher<number>(async (items) => void batches.push(items), { maxItems: 3, maxWaitMs: 100 });
    for (const n of [1, 2, 3, 4]) b.add(n);
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([[1, 2, 3]]);
    await vi.advanceTimersByTimeAsync(99);
    expect(batches).toEqual([[1, 2, 3]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([[1, 2, 3], [4]]);
    b.add(5);
    await b.close(); // the rest at once, not after the wait
    expect(batches).toEqual([[1, 2, 3], [4], [5]]);
  });

  it('runs one batch at a time, in order, the next gathering meanwhile', async () => {
    const started: number[][] = [];
    const finish: Array<() => void> = [];
    const b = batcher<number>(
      (items) =>
        new Promise<void>((done) => {
          started.push(items);
          finish.push(done);
        }),
      {
        maxItems: 2,
        maxWaitMs: 1000,
      },
    );
    for (const n of [1, 2, 3, 4, 5, 6]) b.add(n);
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual([[1, 2]]);
    finish.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual([
      [1, 2],
      [3, 4],
    ]);
    const closed = b.close();
    finish.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    finish.shift()!();
    await closed;
    expect(started).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
  });

  it('still hands on the batches after a failed one, and close rejects with the first failure', async () => {
    const batches: number[][] = [];
    const b = batcher<number>(
      async (items) => {
        batches.push(items);
        if (items[0] !== 2) throw new Error(`database gone at ${items[0]}`);
      },
      { maxItems: 1, maxWaitMs: 10 },
    );
    for (const n of [1, 2, 3]) b.add(n);
    await expect(b.close()).rejects.toThrow('database gone at 1');
    expect(batches).toEqual([[1], [2], [3]]);
    expect(() => b.add(4)).toThrow('add after close');
  });

  it('closes at once with nothing to hand on', async () => {
    const flush = vi.fn(async () => {});
    await batcher<number>(flush, { maxItems: 5, maxWaitMs: 10 }).close();
    expect(flush).not.toHaveBeenCalled();
  });
});
