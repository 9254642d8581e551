import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../../../lib/cache/deep-freeze.ts';

describe('deepFreeze', () => {
  it('freezes a value with every object and array it holds, so a change throws', () => {
    const value = deepFreeze({ counts: { 200: 3 }, steps: [{ name: 'a', codes: { 404: 1 } }], at: null, n: 1 });
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.steps[0]?.codes)).toBe(true);
    expect(() => {
      (value.counts as Record<string, number>)[500] = 1;
    }).toThrow(TypeError);
    expect(() => value.steps.push({ name: 'b', codes: { 404: 0 } })).toThrow(TypeError);
    expect(deepFreeze('text')).toBe('text');
  });
});
