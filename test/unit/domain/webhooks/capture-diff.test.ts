// Diffs of two captures: exactly the names and pointers that changed, headers that differ on every
// delivery left out (or the caller's list), text as a line diff, binary by bytes, the same as same;
// the body's part within its bounds (edits, nesting, size), saying so at each.
import { describe, expect, it } from 'vitest';
import {
  diffCaptures,
  type DiffSide,
  MAX_BODY_DIFF_CHARS,
  MAX_EDIT_LINES,
} from '../../../../domain/webhooks/capture-diff.ts';
import { MAX_JSON_DEPTH } from '../../../../lib/webhooks/json-pointer.ts';

const side = (over: Partial<DiffSide> = {}): DiffSide => ({
  method: 'POST',
  path: '/webhook/w/orders',
  headers: { 'content-type': 'application/json', date: 'Mon', 'content-length': '10' },
  body: '{"order":{"id":1,"lines":[{"sku":"a","n":1}]},"kept":true}',
  bodyEncoding: 'utf8',
  queryParams: '{"page":"1","tag":["x","y"]}',
  ...over,
});

describe('capture diffs', () => {
  it('names exactly a nested field, an added header and a query value that changed', () => {
    const d = diffCaptures(
      side(),
      side({
        headers: { 'content-type': 'application/json', date: 'Tue', 'content-length': '11', 'x-retry': '1' },
        body: '{"order":{"id":1,"lines":[{"sku":"a","n":2}]},"kept":true}',
        queryParams: '{"page":"2","tag":["x","y"]}',
      }),
    );
    expect(d.same).toBe(false);
    expect(d.method).toBeNull();
    expect(d.path).toBeNull();
    expect(d.query).toEqual({ added: {}, removed: {}, changed: { page: { a: '1', b: '2' } } });
    expect(d.headers).toMatchObject({ added: { 'x-retry': '1' }, removed: {}, changed: {} });
    expect(d.headers.ignored).toContain('date');
    expect(d.body).toEqual({
      format: 'json',
      same: false,
      truncated: false,
      changes: [{ change: 'changed', pointer: '/order/lines/0/n', a: 1, b: 2 }],
    });
  });

  it('the same capture is the same; an empty ignore list shows every header', () => {
    expect(diffCaptures(side(), side()).same).toBe(true);
    const all = diffCaptures(side(), side({ headers: { ...side().headers, date: 'Tue' } }), []);
    expect(all.headers.changed).toEqual({ date: { a: 'Mon', b: 'Tue' } });
    expect(all.same).toBe(false);
  });

  it('adds, removes and escapes pointers; method, path and query names', () => {
    const d = diffCaptures(
      side({ body: '{"a/b":1,"gone":[1,2]}', queryParams: null }),
      side({ method: 'PUT', path: '/webhook/w/x', body: '{"a/b":1,"gone":[1],"new~":null}', queryParams: '{"q":"1"}' }),
    );
    expect(d.method).toEqual({ a: 'POST', b: 'PUT' });
    expect(d.path).toEqual({ a: '/webhook/w/orders', b: '/webhook/w/x' });
    expect(d.query.added).toEqual({ q: '1' });
    expect(d.body).toMatchObject({
      changes: [
        { change: 'removed', pointer: '/gone/1', a: 2 },
        { change: 'added', pointer: '/new~0', b: null },
      ],
    });
  });

  it('takes names such as __proto__ and constructor as data, and an object and an array as different', () => {
    const d = diffCaptures(
      side({ body: '{"a":1}', headers: {}, queryParams: '{"__proto__":"x"}' }),
      side({ body: '{"a":1,"constructor":2,"__proto__":3}', headers: { constructor: 'y' }, queryParams: '{}' }),
    );
    expect(d.body).toMatchObject({
      changes: [
        { change: 'added', pointer: '/constructor', b: 2 },
        { change: 'added', pointer: '/__proto__', b: 3 },
      ],
    });
    expect(Object.keys(d.headers.added)).toEqual(['constructor']);
    expect(Object.keys(d.query.removed)).toEqual(['__proto__']);
    expect(diffCaptures(side({ body: '{}' }), side({ body: '[]' })).body).toMatchObject({
      same: false,
      changes: [{ change: 'changed', pointer: '', a: {}, b: [] }],
    });
  });

  it('lists at most 1,000 changes of a body, saying it cut them', () => {
    const many = (n: number) => JSON.stringify(Array.from({ length: 1_500 }, (_, i) => i + n));
    const d = diffCaptures(side({ body: many(0) }), side({ body: many(1) }));
    expect(d.body).toMatchObject({ format: 'json', same: false, truncated: true });
    expect(d.body.format === 'json' && d.body.changes.length).toBe(1_000);
  });

  it('diffs text line by line, JSON against text as text, and binary bodies by their bytes', () => {
    const text = diffCaptures(side({ body: 'a\nb\nc\n' }), side({ body: 'a\nB\nc\n' }));
    expect(text.body).toEqual({
      format: 'text',
      same: false,
      patch: '@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n',
      truncated: false,
    });
    expect(diffCaptures(side({ body: '{"a":1}' }), side({ body: 'a=1' })).body.format).toBe('text');
    expect(diffCaptures(side({ body: null }), side({ body: null })).body).toEqual({
      format: 'text',
      same: true,
      patch: '',
      truncated: false,
    });
    const bin = diffCaptures(
      side({ body: Buffer.from([0, 1, 2]).toString('base64'), bodyEncoding: 'base64' }),
      side({ body: Buffer.from([0, 1, 3, 4]).toString('base64'), bodyEncoding: 'base64' }),
    );
    expect(bin.body).toEqual({ format: 'binary', same: false, a_size: 3, b_size: 4 });
    // Scalars at the top: one change at the whole document.
    expect(diffCaptures(side({ body: '1' }), side({ body: '2' })).body).toMatchObject({
      changes: [{ change: 'changed', pointer: '', a: 1, b: 2 }],
    });
  });

  it('cuts a patch at MAX_BODY_DIFF_CHARS, saying so, and keeps one within it whole', () => {
    const line = (c: string, n: number) => `${c.repeat(n)}\n`;
    // One line each side: the patch is both lines and its hunk's header.
    const under = diffCaptures(side({ body: line('a', 100_000) }), side({ body: line('b', 100_000) })).body;
    expect(under).toMatchObject({ format: 'text', truncated: false });
    expect(under.format === 'text' && under.patch).toBe(
      `@@ -1,1 +1,1 @@\n-${line('a', 100_000)}+${line('b', 100_000)}`,
    );
    const over = diffCaptures(side({ body: line('a', 200_000) }), side({ body: line('b', 200_000) })).body;
    expect(over).toMatchObject({ format: 'text', same: false, truncated: true });
    const patch = over.format === 'text' ? over.patch! : '';
    expect(patch).toHaveLength(MAX_BODY_DIFF_CHARS);
    expect(patch.startsWith(`@@ -1,1 +1,1 @@\n-${line('a', 200_000)}+bbb`)).toBe(true);
  });

  it('gives up a line diff past 5,000 line edits or half a second, saying why, with both sizes', () => {
    const lines = (c: string, n: number) => `${c}\n`.repeat(n);
    const within = diffCaptures(side({ body: lines('x', 100) }), side({ body: lines('y', 100) }));
    expect(within.body).toMatchObject({ format: 'text', same: false, truncated: false });
    expect(within.body.format === 'text' && within.body.patch).toMatch(/^@@ -1,100 \+1,100 @@\n-x\n/);
    // Every line changed: an edit script of 2n lines, past the edits' bound (or the time's, reached first here).
    const n = MAX_EDIT_LINES / 2 + 1;
    const past = diffCaptures(side({ body: lines('x', n) }), side({ body: lines('y', n) })).body;
    expect(past).toMatchObject({ format: 'text', same: false, patch: null, truncated: false });
    expect(past.format === 'text' && past.reason).toMatch(
      new RegExp(
        `^the texts \\(${2 * n} and ${2 * n} bytes, ${n} and ${n} lines\\) (differ in more than 5000 ` +
          `lines|took more than 500 ms)`,
      ),
    );
  });

  it('lists the changes of a JSON body within MAX_BODY_DIFF_CHARS of pointers and values', () => {
    const big = (v: string) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, v.repeat(30_000)])));
    const d = diffCaptures(side({ body: big('a') }), side({ body: big('b') })).body;
    // Each change writes 60,000 characters of values and more: four fit in 256 KiB.
    expect(d).toMatchObject({ format: 'json', same: false, truncated: true });
    expect(d.format === 'json' && d.changes.map((c) => c.pointer)).toEqual(['/k0', '/k1', '/k2', '/k3']);
    // A name longer than the bound: no change can be listed, and the bodies are not the same.
    const named = (v: number) => JSON.stringify({ ['n'.repeat(MAX_BODY_DIFF_CHARS)]: { x: v } });
    expect(diffCaptures(side({ body: named(1) }), side({ body: named(2) })).body).toEqual({
      format: 'json',
      same: false,
      changes: [],
      truncated: true,
    });
  });

  it('diffs JSON nested deeper than MAX_JSON_DEPTH as text', () => {
    const nested = (depth: number, leaf: number) => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
    const at = diffCaptures(side({ body: nested(MAX_JSON_DEPTH, 1) }), side({ body: nested(MAX_JSON_DEPTH, 2) })).body;
    expect(at).toMatchObject({ format: 'json', same: false, changes: [{ pointer: '/0'.repeat(MAX_JSON_DEPTH) }] });
    const past = diffCaptures(
      side({ body: nested(MAX_JSON_DEPTH + 1, 1) }),
      side({ body: nested(MAX_JSON_DEPTH + 1, 2) }),
    );
    expect(past.body).toMatchObject({ format: 'text', same: false, truncated: false });
  });
});
