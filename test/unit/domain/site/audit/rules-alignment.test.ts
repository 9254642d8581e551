import { describe, expect, it } from 'vitest';
import { spacingScale } from '../../../../../domain/site/audit/rules-alignment.ts';

describe('contrast', () => {
  it('finds the spacing scale only when most values share it', () => {
    expect(spacingScale([8, 16, 24, 32, 8, 16, 13])).toEqual({ base: 8, share: 6 / 7 });
    expect(spacingScale([4, 12, 20, 8, 16, 28])).toEqual({ base: 4, share: 1 });
    expect(spacingScale([5, 7, 11, 13, 17, 19])).toBeNull();
    expect(spacingScale([8, 16])).toBeNull();
  });
});
