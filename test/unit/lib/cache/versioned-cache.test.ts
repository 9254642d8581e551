import { describe, expect, it } from 'vitest';
import { VersionedCache } from '../../../../lib/cache/versioned-cache.ts';

describe('VersionedCache', () => {
  it('keeps a value while its version is the same and makes it anew when it changes', () => {
    const cache = new VersionedCache<{ n: number }>(10);
    let made = 0;
    const make = () => ({ n: ++made });
    const first = cache.get('a', 'v1', make);
    expect(cache.get('a', 'v1', make)).toBe(first);
    const second = cache.get('a', 'v2', make);
    expect(second).not.toBe(first);
    expect(second.n).toBe(2);
    expect(cache.get('a', 'v1', make).n).toBe(3); // an older version is not kept beside the newer
  });

  it('holds at most max keys, dropping the least recently used', () => {
    const cache = new VersionedCache<string>(2);
    let made = 0;
    const make = () => `made ${++made}`;
    cache.get('a', '1', make);
    cache.get('b', '1', make);
    cache.get('a', '1', make); // a used last: b goes first
    cache.get('c', '1', make);
    expect(cache.size).toBe(2);
    expect(cache.get('a', '1', make)).toBe('made 1');
    expect(cache.get('b', '1', make)).toBe('made 4');
  });

  it('keeps nothing when making the value throws', () => {
    const cache = new VersionedCache<string>(2);
    expect(() =>
      cache.get('a', '1', () => {
        throw new Error('bad row');
      }),
    ).toThrow('bad row');
    expect(cache.size).toBe(0);
    expect(cache.get('a', '1', () => 'good')).toBe('good');
  });
});
