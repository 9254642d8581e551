// The dashboard's compare page shows the body's diff within a bound: a patch's first 2,000 lines
// (a 256 KiB patch of short lines is 100,000 rows of markup), saying so; why a line diff was given
// up; that a patch or a list of changes was cut.
import { describe, expect, it } from 'vitest';
import { bodyPart, SHOWN_PATCH_LINES } from '../../../../../api/dashboard/webhooks/webhook-diff.ts';

const count = (text: string, part: string) => text.split(part).length - 1;

describe('the compare page', () => {
  it("shows a patch's first 2,000 lines, saying there are more", () => {
    const patch = (n: number) => `@@ -1,${n} +1,${n} @@\n${'-a\n+b\n'.repeat(n)}`;
    // The hunk's header, 1,998 lines and the empty one after the last newline: 2,000, the whole patch.
    const whole = bodyPart({ format: 'text', same: false, patch: patch(999), truncated: false }).value;
    expect(count(whole, '<del>')).toBe(999);
    expect(whole).not.toContain('are shown');
    const cut = bodyPart({ format: 'text', same: false, patch: patch(50_000), truncated: true }).value;
    expect(count(cut, '<del>') + count(cut, '<ins>')).toBe(SHOWN_PATCH_LINES - 1);
    expect(cut).toContain('The first 2,000 lines of the patch are shown: my-webhook-diff answers it whole.');
    expect(cut).toContain('The patch is cut at 256 KiB.');
  });

  it('says why there is no line diff, and that a list of changes was cut', () => {
    const reason =
      'the texts (10 and 12 bytes, 5 and 6 lines) took more than 500 ms to compare line by line: not compared';
    expect(bodyPart({ format: 'text', same: false, patch: null, truncated: false, reason }).value).toBe(
      `<p>Not compared line by line: ${reason}.</p>`,
    );
    const changes = bodyPart({
      format: 'json',
      same: false,
      truncated: true,
      changes: [{ change: 'changed', pointer: '/a', a: 1, b: 2 }],
    }).value;
    expect(changes).toContain('<code>/a</code>');
    expect(changes).toContain(
      'Not every change is listed: the first 1 (at most 1,000, within 256 KiB of pointers and values).',
    );
  });
});
