import { describe, expect, it } from 'vitest';
import { RecentMap } from '../../../../lib/cache/recent-map.ts';

describe('RecentMap', () => {
  it('holds at most max entries, dropping the one used longest ago', () => {
    const map = new RecentMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1); // a used last: b goes first
    map.set('c', 3);
    expect(map.size).toBe(2);
    expect(map.get('b')).toBeUndefined();
    expect([map.get('a'), map.get('c')]).toEqual([1, 3]);
    map.set('a', 4); // setting uses it too, and replaces its value
    map.set('d', 5);
    expect([map.get('a'), map.get('c'), map.get('d')]).toEqual([4, undefined, 5]);
  });

  it('takes objects as keys, by identity', () => {
    const map = new RecentMap<object, string>(4);
    const key = {};
    map.set(key, 'kept');
    expect(map.get(key)).toBe('kept');
    expect(map.get({})).toBeUndefined();
  });
});
