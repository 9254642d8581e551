// No source line wider than 120 characters, strings and templates included (Biome's lineWidth wraps
// code but cannot wrap a string, so it does not enforce the width on its own). The folders listed in
// STRICT hold none; the rest of the tree, which still has some, holds at most CEILING: lower it when
// you fix some (the test says so), and never raise it. Migrations and test fixtures are data as
// written and are not counted.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.ts';

const WIDTH = 120;
const STRICT = [
  'api/pages/',
  'api/dashboard/',
  'api/browser/',
  'bench/',
  'cli/',
  'activities/',
  'workers/',
  'scripts/',
  'domain/',
  'test/contract/',
  'test/faults/',
  'test/support/',
  'test/browser/',
  'db/',
  'lib/',
  'workflows/',
  'api/oauth/',
  'api/openapi/',
  'api/middleware/',
  'api/services/',
  'api/sse.ts',
  'api/client-errors.ts',
  'test/unit/',
  'test/integration/',
];
/** Lines over WIDTH outside STRICT today: it may only go down. */
const CEILING = 46;
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
const strict = (line: string) => STRICT.some((dir) => line.startsWith(dir));

describe('line width', () => {
  it('reads the source tree', () => {
    expect(files).toContain('api/pages/html.ts');
    expect(files.some((f) => f.startsWith('api/browser/'))).toBe(true);
  });

  it(`has no line over ${WIDTH} characters in ${STRICT.join(', ')}`, () => {
    // Break a long template at a tag with a trailing backslash (the text is unchanged), or build it from
    // small functions; a long string as a concatenation; a comment over more lines.
    expect(wide.filter(strict)).toEqual([]);
  });

  it(`has at most ${CEILING} lines over ${WIDTH} characters in the rest of the tree`, () => {
    const rest = wide.filter((line) => !strict(line));
    expect(rest.length, `over ${WIDTH} characters:\n${rest.join('\n')}`).toBeLessThanOrEqual(CEILING);
    if (rest.length < CEILING) console.info(`line width: ${rest.length} long lines now: lower CEILING to it`);
  });
});
