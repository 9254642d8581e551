// The JSON Schema checker (lib/json-schema/json-schema-pool.ts), a pool of lib/threads/thread-pool.ts (whose own tests
// are test/unit/lib/threads/thread-pool.test.ts): verdicts as checkBody gives them, computed off the event loop; a
// check past its budget of CPU time answered `check took too long`, past its heap `check used too much memory`, both
// final; a check past its owner's queue or the bytes of bodies held refused at once (null); closing answers what runs
// and waits `not checked`.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CheckJob,
  isFinal,
  SchemaCheckPool,
  type SchemaCheckPoolOptions,
  TOO_BIG,
  TOO_LONG,
} from '../../../../lib/json-schema/json-schema-pool.ts';

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
    // A schema alone is compiled: valid when it compiles, else why not as its one error.
    const compiling = (schema: object): CheckJob => ({ ...job(schema, null), compileOnly: true });
    expect(await p.submit('a', compiling({ type: 'object' }))).toEqual({ valid: true, errors: [] });
    expect(await p.submit('a', compiling({ type: 'strin' }))).toEqual({
      valid: false,
      errors: [{ path: '', message: expect.stringMatching(/^is not a JSON Schema this service can check with/) }],
    });
    expect(p.stats()).toEqual({ threadIds: [thread], running: 0, queued: 0 });
  });

  it('answers a check past its budget of CPU time `check took too long`, a final verdict, and goes on', async () => {
    // At the process's own priority: a loaded test machine gives a lowered thread too little CPU to judge.
    const p = pool({ threads: 1, budgetMs: 500, nice: 0 });
    const started = performance.now();
    const verdict = await p.submit('a', slow());
    const took = performance.now() - started;
    expect(verdict).toEqual({ valid: null, errors: [], error: TOO_LONG });
    expect(isFinal(verdict!)).toBe(true);
    expect(took).toBeLessThan(6_000); // the budget (of CPU time), not the seconds the check would take
    expect(await p.submit('a', quick())).toEqual({ valid: true, errors: [] });
  });

  it('answers a check past its heap `check used too much memory`, and goes on', async () => {
    // 24 MB: a thread holds about 9 MB once started (one of 10 MB cannot start; one of 12 MB sometimes could not
    // start again to retry, and its check was answered `failed`), so the body, not the start, fills it.
    const p = pool({ threads: 1, heapMb: 24, budgetMs: 30_000 });
    // 600,000 small objects: more than 24 MB once parsed (a thread of 12 MB checks 60,000 of them).
    const body = JSON.stringify(Array.from({ length: 600_000 }, (_, i) => ({ k: `s${i}` })));
    expect(await p.submit('a', job({ type: 'array' }, body))).toEqual({ valid: null, errors: [], error: TOO_BIG });
    expect(await p.submit('a', quick())).toEqual({ valid: true, errors: [] });
  });

  it("refuses a check past its owner's queue or the bytes of bodies held at once (null)", async () => {
    const p = pool({ threads: 1, maxQueuedPerOwner: 1, maxQueuedBytes: 1_000 });
    const first = p.submit('a', quick()); // waits for the thread to start
    expect(p.room('a')).toBe(0);
    expect(p.submit('a', quick())).toBeNull();
    expect(p.submit('b', quick(`{"id":"${'x'.repeat(2_000)}"}`))).toBeNull();
    expect(await first).toEqual({ valid: true, errors: [] });
    expect(await p.submit('b', quick())).toEqual({ valid: true, errors: [] });
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
