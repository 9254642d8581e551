// Counts in words (lib/load/plural.ts): the singular for exactly one, the plural for any other count.
import { describe, expect, it } from 'vitest';
import { noun, plural } from '../../../../lib/load/plural.ts';

describe('plural', () => {
  it('says 1 in the singular, 0 and more in the plural, thousands grouped', () => {
    expect(plural(1, 'user')).toBe('1 user');
    expect(plural(0, 'user')).toBe('0 users');
    expect(plural(1024, 'request')).toBe('1,024 requests');
    expect(plural(2, 'body', 'bodies')).toBe('2 bodies');
    expect(noun(1, 'error/s', 'errors/s')).toBe('error/s');
    expect(noun(1.5, 'error/s', 'errors/s')).toBe('errors/s');
  });
});
