import { describe, expect, it } from 'vitest';
import { headerObject } from '../../../../lib/net/header-object.ts';

describe('capture formatting', () => {
  it('lower-cases header names and joins repeated headers', () => {
    expect(JSON.stringify(headerObject(['Host', 'x', 'X-A', '1', 'x-a', '2', '__proto__', 'p']))).toBe(
      '{"host":"x","x-a":"1, 2","__proto__":"p"}',
    );
  });
});
