// Public ids never start with a character command-line tools would take for an option.
import { describe, expect, it } from 'vitest';
import { newPublicId, PUBLIC_ID_PATTERN } from '../../../../lib/auth/tokens.ts';

describe('newPublicId', () => {
  it('is URL-safe, of the asked size, and never starts with - or _', () => {
    const ids = Array.from({ length: 20_000 }, () => newPublicId(12));
    expect(ids.every((id) => id.length === 16 && PUBLIC_ID_PATTERN.test(id) && /^[A-Za-z0-9]/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // An id made before this (starting with -) is still a valid one to send back.
    expect(PUBLIC_ID_PATTERN.test('-Sm6Q3Y7U9_IHTpG')).toBe(true);
  });
});
