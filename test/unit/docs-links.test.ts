// The README and every page under docs/: each relative link leads to a file that exists (and, with an
// #anchor, to a heading of that file, slugged as GitHub does), each repository path named in code
// (`api/...`, `scripts/setup`, ...) exists, and the README stays a short manual.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.ts';

const DOCS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
/** Markdown without its fenced code blocks (a link or a path in an example is not one to follow). */
const prose = (text: string) => text.replace(/```[\s\S]*?```/g, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replace(/ /g, '-');
const anchorsOf = (file: string) => new Set([...read(file).matchAll(/^#{1,6} (.*)$/gm)].map((m) => slug(m[1]!)));

const ROOTS = [
  'api',
  'activities',
  'bench',
  'cli',
  'db',
  'docs',
  'domain',
  'lib',
  'scripts',
  'test',
  'workers',
  'workflows',
  '.ci',
  'bin',
];

describe('the README and docs/', () => {
  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      for (const m of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
        const [where, anchor] = target.split('#') as [string, string | undefined];
        const resolved = where === '' ? file : path.normalize(path.join(path.dirname(file), where));
        if (!fs.existsSync(path.join(ROOT, resolved))) broken.push(`${file}: ${target} (no ${resolved})`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
          broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name only repository paths that exist', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const file of DOCS) {
      for (const m of prose(read(file)).matchAll(/`([.\w-]+\/[\w./-]*[\w/])`/g)) {
        const named = m[1]!;
        if (!ROOTS.includes(named.split('/')[0]!) || named.includes('<')) continue;
        checked += 1;
        if (!fs.existsSync(path.join(ROOT, named))) missing.push(`${file}: ${named}`);
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(20); // the docs do name the source: the check saw them
  });

  it('and the comments of the code name only repository paths that exist', () => {
    const missing: string[] = [];
    let checked = 0;
    const code = (dir: string): string[] =>
      fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
        const rel = path.join(dir, e.name);
        if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'data' ? [] : code(rel);
        return /\.(ts|js)$/.test(e.name) ? [rel] : [];
      });
    const files = ROOTS.filter((r) => !['docs', '.ci', 'bin'].includes(r) && fs.existsSync(path.join(ROOT, r))).flatMap(
      code,
    );
    for (const file of files) {
      // Comments only: a line comment, or a line of a block comment.
      const comments = read(file)
        .split('\n')
        .filter((line) => /^\s*(\/\/|\/\*|\*)/.test(line))
        .join('\n');
      for (const m of comments.matchAll(/(?<![\w./-])((?:[\w-]+\/)+[\w.-]+\.(?:ts|js|md|json|txt))\b/g)) {
        const named = m[1]!;
        if (!ROOTS.includes(named.split('/')[0]!)) continue;
        checked += 1;
        if (!fs.existsSync(path.join(ROOT, named))) missing.push(`${file}: ${named}`);
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  it('keep the README a short manual: at most 300 lines, a link to each capability page', () => {
    const readme = read('README.md');
    // .ci/run starts the service with the first sh block under "## Start" that runs `npm start`.
    expect(/^## Start\n+```sh\n[^`]*npm start/m.test(readme)).toBe(true);
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    for (const page of [
      'webhooks',
      'load-testing',
      'domains',
      'lookups',
      'site-audit',
      'videos',
      'mcp',
      'dashboard',
      'cli',
      'operating',
      'configuration',
      'api',
      'decisions',
    ]) {
      expect(readme, page).toContain(`(docs/${page}.md`);
    }
  });
});
