// JSON Pointers as RFC 6901 reads them (its section 5 examples), and what is not one; the bounded
// JSON writer (JSON.stringify's characters, reading no more of a value than it writes) and the
// nesting check run before a body is parsed.
import { describe, expect, it } from 'vitest';
import {
  escapedHead,
  getPointer,
  jsonHead,
  MAX_JSON_DEPTH,
  nestedDeeper,
  pointerProblem,
  pointerToken,
  type JsonValue,
} from '../../../../lib/webhooks/json-pointer.ts';

describe('JSON pointers', () => {
  const doc = {
    foo: ['bar', 'baz'],
    '': 0,
    'a/b': 1,
    'c%d': 2,
    'e^f': 3,
    'g|h': 4,
    'i\\j': 5,
    'k"l': 6,
    ' ': 7,
    'm~n': 8,
  };
  it("reads RFC 6901's examples", () => {
    expect(getPointer(doc, '')).toEqual({ value: doc });
    expect(getPointer(doc, '/foo')).toEqual({ value: ['bar', 'baz'] });
    expect(getPointer(doc, '/foo/0')).toEqual({ value: 'bar' });
    expect(getPointer(doc, '/')).toEqual({ value: 0 });
    expect(getPointer(doc, '/a~1b')).toEqual({ value: 1 });
    expect(getPointer(doc, '/m~0n')).toEqual({ value: 8 });
    expect(getPointer(doc, '/ ')).toEqual({ value: 7 });
  });
  it('names nothing past an array, at a leading zero, through a scalar, or up the prototype', () => {
    expect(getPointer(doc, '/foo/2')).toBeUndefined();
    expect(getPointer(doc, '/foo/01')).toBeUndefined();
    expect(getPointer(doc, '/foo/-')).toBeUndefined();
    expect(getPointer(doc, '/foo/0/x')).toBeUndefined();
    expect(getPointer(doc, '/toString')).toBeUndefined();
    expect(getPointer({ a: null }, '/a')).toEqual({ value: null });
  });
  it('refuses what is not a pointer, and escapes names into tokens', () => {
    expect(pointerProblem('a/b')).toMatch(/starting with "\/"/);
    expect(pointerProblem('/a~2')).toMatch(/escape/);
    expect(pointerProblem('/a~1b~0')).toBeNull();
    expect(pointerToken('a/b~c')).toBe('a~1b~0c');
  });
});

describe('bounded JSON text', () => {
  it("writes JSON.stringify's characters, to the bound", () => {
    const value = JSON.parse(
      '{"2":1,"a":[true,null,-0.5,"\\u0001\\"é😀"],"__proto__":{"":[]},"1":{"b":"x"},"e":1e21}',
    ) as JsonValue;
    const full = JSON.stringify(value);
    for (let max = 0; max <= full.length + 2; max++) expect(jsonHead(value, max)).toBe(full.slice(0, max));
    // A surrogate pair is never cut in two.
    expect(escapedHead('a😀', 2)).toBe('a');
    expect(escapedHead('\u0001x', 3)).toBe('\\u0');
  });

  it('reads no more of a value than it writes, and writes values too deep for JSON.stringify', () => {
    let reads = 0;
    // An array of ten million elements, each one read when asked for.
    const huge = new Proxy([] as JsonValue[], {
      get: (target, key) => {
        if (key === 'length') return 10_000_000;
        if (typeof key === 'string' && /^\d+$/.test(key)) {
          reads++;
          return 'abc';
        }
        return Reflect.get(target, key);
      },
    });
    expect(jsonHead(huge, 1000)).toBe(`[${'"abc",'.repeat(166)}"ab`);
    expect(reads).toBe(167);
    let deep: JsonValue = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(jsonHead(deep, 5)).toBe('[[[[[');
  });

  it('tells JSON nested deeper than the bound, brackets in strings aside', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(nestedDeeper(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestedDeeper(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestedDeeper(`{"a":${'['.repeat(MAX_JSON_DEPTH - 1)}"\\"[[[[\\\\"${']'.repeat(MAX_JSON_DEPTH - 1)}}`)).toBe(
      false,
    );
    expect(nestedDeeper(`[${nested(3)},${nested(3)}]`, 4)).toBe(false);
    expect(nestedDeeper(`[${nested(3)},${nested(4)}]`, 4)).toBe(true);
  });
});
