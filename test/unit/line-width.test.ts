// No source line wider than 120 characters, strings and templates included (Biome's lineWidth wraps
// code but cannot wrap a string, so it does not enforce the width on its own). Migrations and test
// fixtures are data as written and are not counted.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.ts';

const WIDTH = 120;
const SOURCE = /\.(ts|js|mjs|cjs|css)$/;
const NOT_COUNTED = ['db/migrations/', 'test/fixtures/'];

/** The source files of the tree: tracked, and new ones not ignored. */
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => SOURCE.test(f) && !NOT_COUNTED.some((dir) => f.startsWith(dir)))
  .filter((f) => fs.existsSync(path.join(ROOT, f)));

/** Each line over WIDTH characters (code points, as an editor counts them): `file:line (width)`. */
const wide = files.flatMap((file) =>
  fs
    .readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .flatMap((line, i) => ([...line].length > WIDTH ? [`${file}:${i + 1} (${[...line].length})`] : [])),
);
describe('line width', () => {
  it('reads the source tree', () => {
    expect(files).toContain('api/pages/html.ts');
    expect(files.some((f) => f.startsWith('api/browser/'))).toBe(true);
  });

  it(`has no line over ${WIDTH} characters`, () => {
    // Break a long template at a tag with a trailing backslash (the text is unchanged), or build it from
    // small functions; a long string as a concatenation; a comment over more lines.
    expect(wide).toEqual([]);
  });
});
