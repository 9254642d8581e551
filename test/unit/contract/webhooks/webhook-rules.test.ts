// A rule set's bounds as the contract reads it: each pattern's program, a path glob's as RE2 runs it
// included, and all of them together.
import { describe, expect, it } from 'vitest';
import { rulesSchema } from '../../../../contract/webhooks/webhook-rules.ts';
import { globPattern, MAX_PROGRAM, MAX_RULES_PROGRAM, programSize } from '../../../../lib/webhooks/webhook-rules.ts';

const rule = (path: string) => ({ match: { path }, response: { status: 200 } });
const issues = (rules: unknown) => {
  const read = rulesSchema.safeParse(rules);
  return read.success ? [] : read.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('rule patterns', () => {
  it('refuses a path glob whose program passes the bound of one pattern, at its field', () => {
    const costly = `/${`**a${'?'.repeat(20)}c`.repeat(20)}`;
    expect(programSize(globPattern(costly))).toBeGreaterThan(MAX_PROGRAM);
    expect(issues([rule(costly)])).toEqual([
      expect.stringMatching(/^0\.match\.path: is too costly a glob \(a program of \d+ steps, at most 200/),
    ]);
    expect(issues([rule('/orders/*/items/**')])).toEqual([]);
    // Text and a trailing ** is compared as text, never run by RE2: no bound but its length.
    expect(issues([rule(`/${'a'.repeat(400)}/**`)])).toEqual([]);
  });

  it("counts a pattern refused on its own at its full size in the set's total", () => {
    const glob = `/${'*a'.repeat(50)}`; // 153 steps
    const costly = { match: { body: { regex: 'a[^\\n]{999}z' } }, response: { status: 200 } };
    const found = issues([costly, ...Array.from({ length: 10 }, () => rule(glob))]);
    expect(found).toContainEqual(expect.stringMatching(/^0\.match\.body\.regex: is too costly a regular expression/));
    expect(found).toContainEqual(expect.stringMatching(/^: hold regular expressions and globs too costly together/));
  });

  it('bounds the programs of the whole set, each counted at its full size', () => {
    const glob = `/${'*a'.repeat(50)}`; // 153 steps: 13 of them pass 2,000
    const size = programSize(globPattern(glob)) as number;
    expect(size).toBeLessThanOrEqual(MAX_PROGRAM);
    const within = Math.floor(MAX_RULES_PROGRAM / size);
    expect(issues(Array.from({ length: within }, () => rule(glob)))).toEqual([]);
    expect(issues(Array.from({ length: within + 1 }, () => rule(glob)))).toEqual([
      expect.stringMatching(/^: hold regular expressions and globs too costly together/),
    ]);
  });
});
