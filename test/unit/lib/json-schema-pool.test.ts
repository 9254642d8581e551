// The JSON Schema checker's threads (lib/json-schema-pool.ts): verdicts computed off the event loop;
// a check past its budget answered `check took too long` and its thread replaced (the next check runs
// on a new one); a thread past its heap answered `check used too much memory`; queues bounded per
// owner, in all and in bytes (past a bound: refused at once), owners served in turn; closing answers
// what waits.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CheckJob,
  isFinal,
  SchemaCheckPool,
  type SchemaCheckPoolOptions,
  TOO_BIG,
  TOO_LONG,
} from '../../../lib/json-schema-pool.ts';

const job = (schema: object, body: string | null): CheckJob => {
  const text = JSON.stringify(schema);
  return { hash: createHash('sha256').update(text).digest('base64url'), schema: text, body, encoding: 'utf8' };
};
/** The schema: 600 `const` branches, each tried (and failed, but the last) for every item. */
const anyOf600 = { type: 'array', items: { anyOf: Array.from({ length: 600 }, (_, i) => ({ const: `v${i}` })) } };
/** Seconds of work on any machine: 20,000 items that each match only the last branch. */
const slow = () => job(anyOf600, JSON.stringify(Array.from({ length: 20_000 }, () => 'v599')));
const quick = (body = '{"id":"a"}') => job({ type: 'object', required: ['id'] }, body);

const pools: SchemaCheckPool[] = [];
const pool = (options: SchemaCheckPoolOptions = {}) => {
  const p = new SchemaCheckPool(options);
  pools.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('SchemaCheckPool', () => {
  it('checks bodies on its threads, reusing them, with the verdicts checkBody gives', async () => {
    const p = pool({ threads: 1 });
    expect(await p.submit('a', quick())).toEqual({ valid: true, errors: [] });
    const [thread] = p.stats().threadIds;
    expect(await p.submit('a', quick('{}'))).toEqual({
      valid: false,
      errors: [{ path: '/id', message: 'is required' }],
    });
    expect(await p.submit('a', job({ type: 'strin' }, '{}'))).toEqual({
      valid: false,
      errors: [{ path: '', message: expect.stringMatching(/^cannot be checked: the schema is not a JSON Schema/) }],
    });
    expect(await p.submit('a', quick('[1,'))).toMatchObject({ valid: false, errors: [{ message: /^is not JSON/ }] });
    expect(p.stats()).toEqual({ threadIds: [thread], running: 0, queued: 0 });
  });

  it('answers a check past its budget `check took too long`, ends its thread and checks the next on a new one', async () => {
    // At the process's own priority: a loaded test machine gives a lowered thread too little CPU to judge.
    const p = pool({ threads: 1, budgetMs: 500, nice: 0 });
    expect(await p.submit('a', quick())).toEqual({ valid: true, errors: [] });
    const [first] = p.stats().threadIds;
    // The event loop goes on while the thread works: timers fire on time.
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 20);
    const started = performance.now();
    const verdict = await p.submit('a', slow());
    const took = performance.now() - started;
    clearInterval(ticker);
    expect(verdict).toEqual({ valid: null, errors: [], error: TOO_LONG });
    expect(isFinal(verdict!)).toBe(true);
    expect(took).toBeGreaterThanOrEqual(490);
    expect(took).toBeLessThan(6_000); // the budget (of CPU time), not the seconds the check would take
    expect(ticks).toBeGreaterThan(3);
    expect(await p.submit('a', quick())).toEqual({ valid: true, errors: [] });
    const [second] = p.stats().threadIds;
    expect(second).not.toBe(first);
    expect(p.stats().threadIds).toHaveLength(1);
  });

  it('answers a check past its heap `check used too much memory`, and goes on', async () => {
    const p = pool({ threads: 1, heapMb: 12, budgetMs: 30_000 });
    // 120,000 small objects: more than 12 MB once parsed (a thread of 12 MB checks 60,000 of them).
    const body = JSON.stringify(Array.from({ length: 120_000 }, (_, i) => ({ k: `s${i}` })));
    expect(await p.submit('a', job({ type: 'array' }, body))).toEqual({ valid: null, errors: [], error: TOO_BIG });
    expect(await p.submit('a', quick())).toEqual({ valid: true, errors: [] });
  });

  it("refuses checks past an owner's queue, all owners' and the bytes held, and serves owners in turn", async () => {
    const p = pool({ threads: 1, budgetMs: 800, maxQueuedPerOwner: 2, maxQueued: 3, maxQueuedBytes: 1_000_000 });
    const done: string[] = [];
    const track = (name: string, owner: string, j: CheckJob) => {
      const submitted = p.submit(owner, j);
      return submitted?.then((v) => done.push(`${name}:${v.valid}`)) ?? null;
    };
    // a1 holds the thread (until its budget); a2, a3 wait: a's queue is full.
    const a1 = track('a1', 'a', slow());
    while (p.stats().running === 0) await new Promise((r) => setTimeout(r, 10)); // a1 on its thread
    const a2 = track('a2', 'a', quick());
    const a3 = track('a3', 'a', quick());
    expect(p.room('a')).toBe(0);
    expect(p.submit('a', quick())).toBeNull();
    // Another owner is still taken, up to the queue of all.
    expect(p.room('b')).toBe(1);
    const b1 = track('b1', 'b', quick());
    expect(p.submit('b', quick())).toBeNull();
    expect(p.submit('c', quick())).toBeNull();
    expect(p.stats()).toMatchObject({ running: 1, queued: 3 });
    await Promise.all([a1, a2, a3, b1]);
    // b1 came after a2 and a3 but went before a3: one of each owner's, in turn.
    expect(done).toEqual(['a1:null', 'a2:true', 'b1:true', 'a3:true']);
    // Bytes: a body bigger than what may wait is refused, a smaller one taken.
    const bytes = pool({ threads: 1, maxQueuedBytes: 1_000 });
    expect(bytes.submit('a', quick(`{"id":"${'x'.repeat(2_000)}"}`))).toBeNull();
    expect(await bytes.submit('a', quick())).toEqual({ valid: true, errors: [] });
  });

  it('answers what runs or waits `not checked` when closed, and takes nothing after', async () => {
    const p = pool({ threads: 1, budgetMs: 10_000 });
    const running = p.submit('a', slow());
    const waiting = p.submit('b', quick());
    while (p.stats().running === 0) await new Promise((r) => setTimeout(r, 10));
    await p.close();
    const stopped = { valid: null, errors: [], error: 'not checked: the checker stopped' };
    expect(await running).toEqual(stopped);
    expect(await waiting).toEqual(stopped);
    expect(isFinal(stopped as never)).toBe(false);
    expect(p.submit('a', quick())).toBeNull();
    expect(p.stats().threadIds).toEqual([]);
  });
});
