// Diffs of two captures: exactly the names and pointers that changed, headers that differ on every
// delivery left out (or the caller's list), text as a line diff, binary by bytes, the same as same.
import { describe, expect, it } from 'vitest';
import { diffCaptures, type DiffSide } from '../../../lib/capture-diff.ts';

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
    expect(text.body).toEqual({ format: 'text', same: false, patch: '@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n' });
    expect(diffCaptures(side({ body: '{"a":1}' }), side({ body: 'a=1' })).body.format).toBe('text');
    expect(diffCaptures(side({ body: null }), side({ body: null })).body).toEqual({
      format: 'text',
      same: true,
      patch: '',
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
});
