// JSON Pointers as RFC 6901 reads them (its section 5 examples), and what is not one.
import { describe, expect, it } from 'vitest';
import { getPointer, pointerProblem, pointerToken } from '../../../lib/json-pointer.ts';

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
