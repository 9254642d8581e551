// Capture diffs on threads of their own: the same answer as on the event loop; a diff past its time
// or its heap is its owner's error (504) and the next diff gets a new thread; an owner past their
// queue's bound is refused at once (503), others still served.
import { afterEach, describe, expect, it } from 'vitest';
import { diffCaptures, type DiffSide } from '../../../../domain/webhooks/capture-diff.ts';
import { CaptureDiffThreads, DiffTooCostlyError } from '../../../../domain/webhooks/capture-diff-threads.ts';
import { UnavailableError } from '../../../../lib/errors.ts';

const side = (body: string, over: Partial<DiffSide> = {}): DiffSide => ({
  method: 'POST',
  path: '/webhook/w',
  headers: { 'content-type': 'application/json' },
  body,
  bodyEncoding: 'utf8',
  queryParams: null,
  ...over,
});
/** A megabyte of short lines, each `a` or `b` at random: jsdiff works its half second on two of them. */
const lines = () => Array.from({ length: 512 * 1024 }, () => (Math.random() < 0.5 ? 'a\n' : 'b\n')).join('');

describe('capture diff threads', () => {
  const pools: CaptureDiffThreads[] = [];
  const pool = (options: ConstructorParameters<typeof CaptureDiffThreads>[0]) => {
    const p = new CaptureDiffThreads(options);
    pools.push(p);
    return p;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });

  it('answers what diffCaptures answers, headers and all', async () => {
    const threads = pool({});
    const a = side('{"order":{"id":1,"n":1}}', { headers: { 'x-a': '1' } });
    const b = side('{"order":{"id":1,"n":2}}', { method: 'PUT' });
    expect(await threads.diff('u1', a, b)).toEqual(diffCaptures(a, b));
    const text = [side('one\ntwo\n'), side('one\n2\n')] as const;
    expect(await threads.diff('u1', ...text, [])).toEqual(diffCaptures(...text, []));
  });

  it("ends a diff past its time with its owner's error; the next one gets a new thread", async () => {
    // jsdiff gives up after half a second: a budget below it is always passed.
    const threads = pool({ threads: 1, budgetMs: 200 });
    await threads.diff('u1', side('a'), side('b'));
    const [first] = threads.stats().threadIds;
    const slow = threads.diff('u1', side(lines()), side(lines()));
    await expect(slow).rejects.toThrow(DiffTooCostlyError);
    await expect(slow).rejects.toThrow(/^Comparing the bodies \(1048576 and 1048576 bytes\) took more than 0\.2 s/);
    await expect(slow).rejects.toMatchObject({ status: 504, code: 'timeout' });
    expect((await threads.diff('u2', side('x\n'), side('y\n'))).body).toMatchObject({ format: 'text', same: false });
    expect(threads.stats().threadIds).toHaveLength(1);
    expect(threads.stats().threadIds[0]).not.toBe(first);
  });

  it("ends a diff past its thread's heap with its owner's error", async () => {
    // 32 MB: a thread holds about 12 MB once started, so the bodies, not the start, fill it.
    const threads = pool({ threads: 1, heapMb: 32 });
    const many = (v: number) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: 150_000 }, (_, i) => [`key-${i}`, [v, { v }]])));
    await expect(threads.diff('u1', side(many(1)), side(many(2)))).rejects.toThrow(
      /^Comparing the bodies \(\d+ and \d+ bytes\) needed more than 32 MB: not compared$/,
    );
    expect((await threads.diff('u1', side('[1]'), side('[2]'))).body).toMatchObject({ format: 'json', same: false });
  });

  it("refuses an owner's diffs past their queue's bound at once, and serves the others", async () => {
    const threads = pool({ threads: 1, maxQueuedPerOwner: 2 });
    await threads.diff('u0', side('a'), side('b')); // the thread started
    const body = lines();
    // One runs, two wait: the fourth of the same owner is refused.
    const mine = [1, 2, 3].map(() => threads.diff('u1', side(body), side(`${body}x`)));
    const refused = threads.diff('u1', side('a'), side('b'));
    await expect(refused).rejects.toThrow(UnavailableError);
    await expect(refused).rejects.toThrow('Too many capture diffs waiting of yours: try again in a few seconds');
    const other = threads.diff('u2', side('a'), side('b'));
    expect((await other).body).toMatchObject({ format: 'text', same: false });
    for (const d of await Promise.all(mine)) expect(d.body).toMatchObject({ format: 'text', same: false });
  });
});
