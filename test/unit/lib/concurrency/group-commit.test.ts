import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit } from '../../../../lib/concurrency/group-commit.ts';

/** A write that records its batches and answers each item doubled, held until `release` is called. */
function held() {
  const batches: number[][] = [];
  const waiting: Array<() => void> = [];
  const write = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((resolve) => waiting.push(resolve));
    if (items.includes(13)) throw new Error('13 cannot be stored');
    return items.map((i) => i * 2);
  };
  /** Lets the oldest write under way finish (failing if none comes). */
  const release = async () => {
    for (let i = 0; waiting.length === 0; i++) {
      if (i > 100) throw new Error('no write to release');
      await new Promise((r) => setImmediate(r));
    }
    waiting.shift()!();
  };
  return { batches, write, release };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('GroupCommit', () => {
  it('writes an item alone at low load, and those that come meanwhile together, each caller told its own', async () => {
    const w = held();
    const group = new GroupCommit(w.write, { maxItems: 10, maxConcurrent: 1 });
    const first = group.submit(1);
    await new Promise((r) => setImmediate(r));
    const rest = [2, 3, 4].map((i) => group.submit(i));
    await w.release();
    expect(await first).toBe(2);
    await w.release();
    expect(await Promise.all(rest)).toEqual([4, 6, 8]);
    expect(w.batches).toEqual([[1], [2, 3, 4]]);
  });

  it('starts the next write before it answers the callers of the one just done', async () => {
    const w = held();
    const group = new GroupCommit(w.write, { maxItems: 10, maxConcurrent: 1 });
    const first = group.submit(1);
    await new Promise((r) => setImmediate(r));
    const second = group.submit(2); // waits for the first write's slot
    let writesWhenAnswered = 0;
    const answered = first.then(() => (writesWhenAnswered = w.batches.length));
    await w.release();
    await answered;
    expect(writesWhenAnswered).toBe(2); // [1], then [2] already under way
    await w.release();
    expect(await second).toBe(4);
  });

  it('lets the items of waitMs join the first one’s write, and sends a full write at once', async () => {
    vi.useFakeTimers();
    const batches: number[][] = [];
    const group = new GroupCommit(
      async (items: number[]) => {
        batches.push(items);
        return items;
      },
      {
        maxItems: 4,
        maxConcurrent: 1,
        waitMs: 50,
      },
    );
    const all = [group.submit(1)];
    await vi.advanceTimersByTimeAsync(30);
    all.push(group.submit(2));
    await vi.advanceTimersByTimeAsync(19);
    expect(batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([[1, 2]]);
    all.push(...[3, 4, 5, 6].map((i) => group.submit(i)));
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5, 6],
    ]);
    expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('keeps to its most items, weight and writes at once', async () => {
    const w = held();
    const group = new GroupCommit(w.write, { maxItems: 3, maxConcurrent: 2, weight: (i) => i, maxWeight: 10 });
    const all = [1, 2, 3, 4, 5, 20].map((i) => group.submit(i));
    await new Promise((r) => setImmediate(r));
    expect(w.batches).toEqual([
      [1, 2, 3],
      [4, 5], // with 20 they would pass the weight
    ]);
    await w.release();
    await w.release();
    await w.release();
    expect(await Promise.all(all)).toEqual([2, 4, 6, 8, 10, 40]);
    expect(w.batches.at(-1)).toEqual([20]); // heavier than the most alone: still written
  });

  it('fails only the caller of an item whose weight cannot be taken, and writes the others', async () => {
    const w = held();
    const group = new GroupCommit(w.write, {
      maxItems: 10,
      maxConcurrent: 1,
      weight: (i) => {
        if (i === 7) throw new Error('7 has no weight');
        return i;
      },
      maxWeight: 100,
    });
    const all = Promise.allSettled([1, 7, 2].map((i) => group.submit(i)));
    await w.release();
    expect((await all).map((s) => (s.status === 'fulfilled' ? s.value : String(s.reason)))).toEqual([
      2,
      'Error: 7 has no weight',
      4,
    ]);
    expect(w.batches).toEqual([[1, 2]]);
  });

  it(
    'fails every caller of a failed write, or when `alone` ' + 'says so of its error only the bad item’s, and drains',
    async () => {
      for (const alone of [false, true]) {
        const w = held();
        const group = new GroupCommit(w.write, {
          maxItems: 10,
          maxConcurrent: 1,
          alone: (err) => alone && String(err).includes('cannot be stored'),
        });
        const all = Promise.allSettled([12, 13, 14].map((i) => group.submit(i)));
        const drained = group.drain();
        for (let i = 0; i < (alone ? 5 : 1); i++) await w.release();
        const settled = await all;
        await drained;
        expect(settled.map((s) => s.status)).toEqual(
          alone ? ['fulfilled', 'rejected', 'fulfilled'] : ['rejected', 'rejected', 'rejected'],
        );
        // Tried again in halves: [12, 13] fails and is halved again, [14] goes.
        expect(w.batches).toEqual(alone ? [[12, 13, 14], [12, 13], [12], [13], [14]] : [[12, 13, 14]]);
      }
    },
  );

  it('finds one bad item among a hundred in a few writes, the others written together', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit(
      async (items: number[]) => {
        batches.push(items);
        if (items.includes(37)) throw new Error('37 cannot be stored');
        return items;
      },
      { maxItems: 100, maxConcurrent: 1, alone: () => true },
    );
    const settled = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => group.submit(i)));
    expect(settled.filter((s) => s.status === 'rejected')).toHaveLength(1);
    expect((settled[37] as PromiseRejectedResult).reason).toMatchObject({ message: '37 cannot be stored' });
    // 1 write, then two halves at each of 7 levels down to 37 alone (one at a time: 101 writes).
    expect(batches.length).toBeLessThanOrEqual(15);
    expect(batches.flat().filter((i) => i !== 37).length).toBeLessThan(300);
  });

  it('refuses a write that answers fewer outcomes than items, without writing them again', async () => {
    let writes = 0;
    const group = new GroupCommit(
      async (items: number[]) => {
        writes += 1;
        return items.slice(1);
      },
      { maxItems: 10, maxConcurrent: 1, alone: () => true },
    );
    await expect(Promise.all([group.submit(1), group.submit(2)])).rejects.toThrow('1 outcomes for 2 items');
    expect(writes).toBe(1);
  });

  it('drains the items still waiting for their write', async () => {
    vi.useFakeTimers();
    const written: number[] = [];
    const group = new GroupCommit(
      async (items: number[]) => {
        written.push(...items);
        return items;
      },
      { maxItems: 10, maxConcurrent: 1, waitMs: 50 },
    );
    void group.submit(1);
    const drained = group.drain();
    await vi.advanceTimersByTimeAsync(50);
    await drained;
    expect(written).toEqual([1]);
  });

  it('fails the callers of a failed write when its `alone` itself throws', async () => {
    const group = new GroupCommit(
      async (): Promise<number[]> => {
        throw new Error('the write failed');
      },
      {
        maxItems: 10,
        maxConcurrent: 1,
        alone: () => {
          throw new Error('a broken predicate');
        },
      },
    );
    const settled = await Promise.allSettled([group.submit(1), group.submit(2)]);
    expect(settled.map((s) => s.status === 'rejected' && String(s.reason))).toEqual([
      'Error: the write failed',
      'Error: the write failed',
    ]);
  });
});
