// Shorthand declarations as the audit reads them, in one pass over a value of any length.
import { describe, expect, it } from 'vitest';
import { expandShorthand } from '../../../../../domain/site/audit/styles.ts';

const declaration = (property: string, value: string) => ({ property, value, important: false });

describe('shorthand declarations', () => {
  it("reads a background's image and colour, a parenthesis's spaces kept, !important left out", () => {
    expect(
      expandShorthand(declaration('background', 'linear-gradient(rgba(0, 0, 0, .5), red) #fff !important')),
    ).toEqual([
      ['background-image', 'linear-gradient(rgba(0, 0, 0, .5), red)'],
      ['background-color', '#fff'],
    ]);
  });

  it('reads a value of a sheet-sized run of spaces in one pass', () => {
    // `\s*!important\s*$` and a lookahead split were quadratic in such a run (1.9 s for 40,000).
    const spaced = `url(a.png)${' '.repeat(200_000)}x${' '.repeat(200_000)}`;
    expect(expandShorthand(declaration('background', spaced))).toEqual([['background-image', 'url(a.png)']]);
  });
});
