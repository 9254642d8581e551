// The bounded pool of threads (lib/threads/thread-pool.ts), on a thread of test tasks: tasks run off the event
// loop, on threads started as tasks wait and kept; a task past its budget (of CPU time or by the clock,
// as the pool says) is answered `time` and its thread ended; past its heap `memory` (with one more try
// on a new thread where the pool says so); queues bounded per owner, in all and in bytes (past a bound:
// refused at once), owners served in turn; a failed thread answered, one that cannot start answering
// what waits; closing answers what runs and waits.
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Outcome,
  ThreadPool,
  type ThreadPoolKind,
  type ThreadPoolOptions,
} from '../../../../lib/threads/thread-pool.ts';
import type { PoolTestTask } from '../../../fixtures/thread-pool-tasks.ts';

const TASKS = new URL('../../../fixtures/thread-pool-tasks.ts', import.meta.url);

const pools: ThreadPool<PoolTestTask, string>[] = [];
/** One thread, at the process's own priority (a loaded test machine gives a lowered thread too little CPU). */
const pool = (options: Partial<ThreadPoolOptions> = {}, kind: Partial<ThreadPoolKind<PoolTestTask>> = {}) => {
  const figures = { threads: 1, budgetMs: 10_000, heapMb: 32, maxQueued: 64, maxQueuedPerOwner: 16, nice: 0 };
  const p = new ThreadPool<PoolTestTask, string>(
    { ...figures, maxQueuedBytes: Number.POSITIVE_INFINITY, ...options },
    { module: TASKS, clock: 'wall', ...kind },
  );
  pools.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** `task`'s outcome; the test fails where it was refused. */
function ran(p: ThreadPool<PoolTestTask, string>, owner: string, task: PoolTestTask): Promise<Outcome<string>> {
  const run = p.run(owner, task);
  if (typeof run === 'string') throw new Error(`refused: ${run}`);
  return run;
}
const answered = (answer: string) => ({ ok: true, answer });
const started = async (p: ThreadPool<PoolTestTask, string>) => {
  while (p.stats().running === 0) await new Promise((r) => setTimeout(r, 10));
};

/** Resolves once the pool has `n` threads; fails after 10 s. */
async function threadsLeft(p: ThreadPool<PoolTestTask, string>, n: number): Promise<void> {
  for (const deadline = Date.now() + 10_000; p.stats().threadIds.length !== n; ) {
    if (Date.now() > deadline) throw new Error(`the pool still has ${p.stats().threadIds.length} threads, not ${n}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('ThreadPool', () => {
  it('runs tasks on threads started as tasks wait, up to the most, and keeps them', async () => {
    const p = pool({ threads: 2 });
    expect(p.stats().threadIds).toEqual([]);
    const answers = await Promise.all(['a', 'b', 'c'].map((echo) => ran(p, 'u', { echo })));
    expect(answers).toEqual(['a', 'b', 'c'].map(answered));
    const threads = p.stats().threadIds;
    expect(threads).toHaveLength(2);
    expect(await ran(p, 'u', { echo: 'd' })).toEqual(answered('d'));
    expect(p.stats()).toEqual({ threadIds: threads, running: 0, queued: 0 });
  });

  it('ends a thread idle for idleMs, and starts one again for the next task', async () => {
    const p = pool({ threads: 2 }, { idleMs: 300 });
    await Promise.all([ran(p, 'u', { sleepMs: 200 }), ran(p, 'u', { echo: 'a' })]);
    expect(p.stats().threadIds).toHaveLength(2);
    // A thread that keeps working is kept; the other, idle, ends.
    expect(p.warm).toBe(true);
    const busy = ran(p, 'u', { sleepMs: 900 });
    await threadsLeft(p, 1);
    expect(p.stats()).toMatchObject({ running: 1, queued: 0 });
    await busy;
    await threadsLeft(p, 0);
    expect(p.warm).toBe(false);
    expect(await ran(p, 'u', { echo: 'b' })).toEqual(answered('b'));
    expect(p.stats().threadIds).toHaveLength(1);
  });

  it('ends a task past its CPU budget (`time`), the event loop going on; replaces its thread at once', async () => {
    const p = pool({ budgetMs: 300 }, { clock: 'cpu', replaceEnded: true });
    await ran(p, 'u', { echo: 'a' });
    const [first] = p.stats().threadIds;
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 20);
    const since = performance.now();
    expect(await ran(p, 'u', { spinMs: 10_000 })).toEqual({ ok: false, failed: 'time' });
    const took = performance.now() - since;
    clearInterval(ticker);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(3_000); // the budget, not the ten seconds the task would take
    expect(ticks).toBeGreaterThan(3);
    // A new thread before any task asks for one.
    expect(p.stats().threadIds).toHaveLength(1);
    expect(p.stats().threadIds[0]).not.toBe(first);
    expect(await ran(p, 'u', { echo: 'b' })).toEqual(answered('b'));
  });

  it.runIf(process.platform === 'linux')(
    'charges a task its own CPU time only, up to ten budgets by the clock (`busy`); by the clock, all its time',
    async () => {
      const cpu = pool({ budgetMs: 100 }, { clock: 'cpu' });
      expect(await ran(cpu, 'u', { sleepMs: 400 })).toEqual(answered('slept'));
      const since = performance.now();
      expect(await ran(cpu, 'u', { sleepMs: 5_000 })).toEqual({ ok: false, failed: 'busy' });
      expect(performance.now() - since).toBeGreaterThanOrEqual(990);
      expect(performance.now() - since).toBeLessThan(4_000);
      const wall = pool({ budgetMs: 100 }, { clock: 'wall' });
      expect(await ran(wall, 'u', { sleepMs: 400 })).toEqual({ ok: false, failed: 'time' });
      // Without `replaceEnded`: a new thread when a task next waits.
      expect(wall.stats().threadIds).toEqual([]);
      expect(await ran(wall, 'u', { echo: 'a' })).toEqual(answered('a'));
    },
  );

  it('answers a task past its heap `memory`; with retryOutOfMemory it runs once more, on a new thread', async () => {
    // 32 MB of heap: 16 MB kept fit, 16 MB more do not.
    const once = pool();
    expect(await ran(once, 'u', { keepMb: 16 })).toEqual(answered('kept 16 MB'));
    expect(await ran(once, 'u', { keepMb: 16 })).toMatchObject({ ok: false, failed: 'memory' });
    expect(await ran(once, 'u', { echo: 'a' })).toEqual(answered('a'));
    const again = pool({}, { retryOutOfMemory: true });
    await ran(again, 'u', { keepMb: 16 });
    // What the thread's earlier task kept filled its heap: the task fits on a new thread.
    expect(await ran(again, 'u', { keepMb: 16 })).toEqual(answered('kept 16 MB'));
    expect(await ran(again, 'u', { keepMb: 64 })).toMatchObject({ ok: false, failed: 'memory' });
    // An allocation refused by V8 itself (past its longest string), uncaught: the heap's failure too.
    expect(await ran(once, 'u', { stringMb: 2048 })).toMatchObject({ ok: false, failed: 'memory' });
    expect(await ran(once, 'u', { echo: 'b' })).toEqual(answered('b'));
  });

  it("refuses at once past an owner's queue, all owners' and the bytes held, and serves owners in turn", async () => {
    const p = pool(
      { maxQueuedPerOwner: 2, maxQueued: 3, maxQueuedBytes: 1_000 },
      { bytes: (t) => ('echo' in t ? t.echo.length : 0) },
    );
    const done: string[] = [];
    const track = (owner: string, task: PoolTestTask) =>
      ran(p, owner, task).then((o) => done.push(o.ok ? o.answer : o.failed));
    // a1 holds the thread; a2, a3 wait: a's queue is full.
    const a1 = track('a', { sleepMs: 300 });
    await started(p);
    const a2 = track('a', { echo: 'a2' });
    const a3 = track('a', { echo: 'a3' });
    expect(p.room('a')).toBe(0);
    expect(p.run('a', { echo: 'a4' })).toBe('owner');
    // Another owner is still taken, up to the bytes and the queue of all.
    expect(p.room('b')).toBe(1);
    expect(p.run('b', { echo: 'x'.repeat(1_000) })).toBe('bytes');
    const b1 = track('b', { echo: 'b1' });
    expect(p.run('c', { echo: 'c1' })).toBe('all');
    expect(p.stats()).toMatchObject({ running: 1, queued: 3 });
    await Promise.all([a1, a2, a3, b1]);
    // b1 came after a2 and a3 but went before a3: one of each owner's, in turn.
    expect(done).toEqual(['slept', 'a2', 'b1', 'a3']);
  });

  it('answers `crashed` when a thread failed (a throw, a failed promise), `unstarted` when none starts', async () => {
    const p = pool();
    expect(await ran(p, 'u', { fail: 'a bug' })).toMatchObject({
      ok: false,
      failed: 'crashed',
      error: { message: 'a bug' },
    });
    expect(await ran(p, 'u', { echo: 'a' })).toEqual(answered('a'));
    // An answer that is a promise which fails ends its thread as a throw does.
    expect(await ran(p, 'u', { reject: 'a failed promise' })).toMatchObject({
      ok: false,
      failed: 'crashed',
      error: { message: 'a failed promise' },
    });
    expect(await ran(p, 'u', { echo: 'b' })).toEqual(answered('b'));
    const none = pool({}, { module: new URL('../../../fixtures/no-such-thread.ts', import.meta.url) });
    const waiting = await Promise.all([ran(none, 'u', { echo: 'a' }), ran(none, 'v', { echo: 'b' })]);
    const unstarted = {
      ok: false,
      failed: 'unstarted',
      error: { message: expect.stringMatching(/Cannot find module/) },
    };
    for (const outcome of waiting) expect(outcome).toMatchObject(unstarted);
    expect(waiting).toHaveLength(2);
    expect(none.stats()).toEqual({ threadIds: [], running: 0, queued: 0 });
  });

  it('answers what runs or waits `stopped` when closed, and takes nothing after', async () => {
    const p = pool();
    const running = ran(p, 'a', { spinMs: 10_000 });
    const waiting = ran(p, 'b', { echo: 'b' });
    await started(p);
    await p.close();
    expect(await running).toEqual({ ok: false, failed: 'stopped' });
    expect(await waiting).toEqual({ ok: false, failed: 'stopped' });
    expect(p.run('a', { echo: 'a' })).toBe('stopped');
    expect(p.room('a')).toBe(0);
    expect(p.stats().threadIds).toEqual([]);
  });
});
