import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { atFirstUse } from '../../../lib/at-first-use.ts';

const require = createRequire(import.meta.url);
const loadedFrom = (specifier: string) => Boolean(require.cache[require.resolve(specifier)]);

describe('atFirstUse', () => {
  it('loads the package at the first call, not before, and the same module after', () => {
    const load = atFirstUse<typeof import('css-tree')>('css-tree');
    expect(loadedFrom('css-tree')).toBe(false);
    const first = load();
    expect(loadedFrom('css-tree')).toBe(true);
    expect(typeof first.parse).toBe('function');
    expect(load()).toBe(first);
  });

  it('throws a failed load to its caller, and tries again at the next call', () => {
    const load = atFirstUse('netops-no-such-package');
    expect(load).toThrow(/netops-no-such-package/);
    expect(load).toThrow(/netops-no-such-package/);
  });
});
