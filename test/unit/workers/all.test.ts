// What `npm start` (workers/all.ts) loads at start, the embedded process holds while idle: a package that
// only some requests or jobs use is loaded by them (a dynamic import, or a require at first use), not by
// the static import graph from workers/all.ts. Checked on that graph, read from the source files.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../support/processes.ts';

/** Packages of requests and jobs that an idle process does without (heap they cost measured in docs/benchmarks.md). */
const LOADED_AT_FIRST_USE = ['@modelcontextprotocol/server', 'minio', 'ioredis', 'css-tree', 'geo-tz'];

/**
 * The modules a static import loads (`import ... from`, `export ... from`, `import '...'`), type-only ones
 * left out: Node's type stripping drops them, and those a top-level require loads. Dynamic imports and
 * requires inside functions are not followed.
 */
function staticImports(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const imports = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?!type[\s{*])(?:[^;'"]*?\sfrom\s+)?'([^']+)'/g),
  ].map((m) => m[1]!);
  // A require at the module's top level (a line not indented, and not a function's), `require('x')` or
  // `createRequire(...)('x')`, loads with the module as an import does.
  const required = [...text.matchAll(/^(?![^\n]*=>)\S[^\n]*(?:\brequire|\))\(\s*'([^']+)'\s*\)/gm)].map((m) => m[1]!);
  return [...imports, ...required];
}

/** The static import graph from `entry`: our files reached and the packages they import. */
function loadedFrom(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const stack = [entry];
  while (stack.length) {
    const file = stack.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) stack.push(path.normalize(path.join(path.dirname(file), spec)));
      else if (!spec.startsWith('node:')) packages.add(spec.split('/', spec.startsWith('@') ? 2 : 1).join('/'));
    }
  }
  return { files, packages };
}

describe('what the embedded process loads at start', () => {
  const { files, packages } = loadedFrom('workers/all.ts');

  it('follows the graph through the API, the pools and the database', () => {
    expect(files).toContain('api/app.ts');
    expect(files).toContain('workers/pools/network.ts');
    expect(files).toContain('db/connect.ts');
    expect(packages).toContain('@temporalio/worker');
  });

  it('leaves out the packages that only some requests and jobs use', () => {
    expect(LOADED_AT_FIRST_USE.filter((p) => packages.has(p))).toEqual([]);
  });
});
