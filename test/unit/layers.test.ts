// The layers of ARCHITECTURE.md, checked on the import graph of the source tree: doors reach the
// database and Temporal only through services, the API reaches domain code and never the activities,
// the contract stands on lib alone and the command line on the contract and lib, domain code on the
// contract and lib, the database on lib and the contract, nothing low imports from above it, no module
// imports itself back through others, and no module grows past 300 lines.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.ts';
import { SOURCE_DIRS, sourceFiles } from '../support/source-tree.ts';

/** The server's folders: what the contract and the command line never reach. */
const SERVER_DIRS = ['api', 'db', 'domain', 'activities', 'workflows', 'workers'];
const MAX_LINES = 300;
/** Modules a folder holds beside its subfolders: past it, the folder is split into rooms by concern. */
const MAX_FILES = 15;

const files = SOURCE_DIRS.flatMap(sourceFiles);
/** Each file's relative imports (static, re-exports and dynamic), as paths from the root. */
const imports = new Map(
  files.map((file) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const specs = [
      ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g),
    ].map((m) => m[1] ?? m[2]!);
    return [file, specs.map((s) => path.normalize(path.join(path.dirname(file), s)))];
  }),
);
const under = (file: string, dir: string) => file.startsWith(`${dir}/`);
/** Every file `starts` reach through their imports (static, re-exports and dynamic), themselves included. */
function closureOf(starts: readonly string[]): string[] {
  const seen = new Set<string>();
  const stack = [...starts];
  while (stack.length) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    stack.push(...(imports.get(file) ?? []));
  }
  return [...seen];
}
const doorsOf = (file: string) => ['api/routes', 'api/mcp', 'api/dashboard', 'api/openapi'].find((d) => under(file, d));

describe('layers', () => {
  it('finds the source tree', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(imports.get('api/app.ts')).toContain('api/services/index.ts');
  });

  it('doors never import from another door: only services, schemas and shared pieces', () => {
    const sideways = [...imports].flatMap(([file, targets]) => {
      const door = doorsOf(file);
      return door ? targets.filter((t) => doorsOf(t) && doorsOf(t) !== door).map((t) => `${file} -> ${t}`) : [];
    });
    expect(sideways).toEqual([]);
  });

  it('doors reach the database only through a service', () => {
    const direct = [...imports].flatMap(([file, targets]) =>
      doorsOf(file)
        ? targets
            .filter((t) => under(t, 'db') && !t.endsWith('/schema.ts') && !t.endsWith('/users.ts'))
            .map((t) => `${file} -> ${t}`)
        : [],
    );
    expect(direct).toEqual([]);
  });

  it('the API never reaches the activities: what both need is domain code, below both', () => {
    const sideways = [...imports].flatMap(([file, targets]) =>
      under(file, 'api') ? targets.filter((t) => under(t, 'activities')).map((t) => `${file} -> ${t}`) : [],
    );
    expect(sideways).toEqual([]);
  });

  it('domain code imports only the contract, lib and other domain code', () => {
    const reached = [...imports].flatMap(([file, targets]) =>
      under(file, 'domain')
        ? targets
            .filter((t) => !under(t, 'domain') && !under(t, 'contract') && !under(t, 'lib'))
            .map((t) => `${file} -> ${t}`)
        : [],
    );
    expect(reached).toEqual([]);
    expect(files.filter((f) => under(f, 'domain')).length).toBeGreaterThan(30);
  });

  it('the contract imports only the contract and lib, and the lib files it reaches nothing of the server', () => {
    const contract = files.filter((f) => under(f, 'contract'));
    const reached = [...imports].flatMap(([file, targets]) =>
      under(file, 'contract')
        ? targets.filter((t) => !under(t, 'contract') && !under(t, 'lib')).map((t) => `${file} -> ${t}`)
        : [],
    );
    expect(reached).toEqual([]);
    expect(closureOf(contract).filter((f) => SERVER_DIRS.some((d) => under(f, d)))).toEqual([]);
    expect(contract.length).toBeGreaterThan(20);
  });

  it('the database imports only lib, the contract and itself: what it stores is declared below it', () => {
    const reached = [...imports].flatMap(([file, targets]) =>
      under(file, 'db')
        ? targets.filter((t) => !['db', 'lib', 'contract'].some((d) => under(t, d))).map((t) => `${file} -> ${t}`)
        : [],
    );
    expect(reached).toEqual([]);
  });

  it('activities, domain, lib and db import nothing from workflows, workers or the API', () => {
    const upward = [...imports].flatMap(([file, targets]) =>
      ['activities', 'domain', 'lib', 'db'].some((d) => under(file, d))
        ? targets.filter((t) => ['workflows', 'workers', 'api'].some((d) => under(t, d))).map((t) => `${file} -> ${t}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  it('the command line is a client of the REST API: it imports the contract and lib, nothing of the server', () => {
    const cli = files.filter((f) => under(f, 'cli'));
    const allowed = (t: string) =>
      under(t, 'cli') ||
      under(t, 'contract') ||
      (under(t, 'lib') && !under(t, 'lib/temporal') && !under(t, 'lib/kv') && !under(t, 'lib/blob'));
    const reached = [...imports].flatMap(([file, targets]) =>
      under(file, 'cli') ? targets.filter((t) => !allowed(t)).map((t) => `${file} -> ${t}`) : [],
    );
    expect(reached).toEqual([]);
    // Its whole closure, followed through every import (the contract's lib files included).
    // (lib/kv, lib/temporal and lib/blob included: the server's stores, even by a type; package.json is its version.)
    const outside = (f: string) => SERVER_DIRS.some((d) => under(f, d)) || (!allowed(f) && f !== 'package.json');
    expect(closureOf(cli).filter(outside)).toEqual([]);
    expect(cli.length).toBeGreaterThan(5);
  });

  it('has no import circles', () => {
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...trail.slice(trail.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of imports.get(file) ?? []) if (imports.has(next)) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('keeps the unit tests beside the source they test: test/unit/<dir>/<file>.test.ts tests <dir>/<file>.ts', () => {
    const tests = (dir: string): string[] =>
      fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
        const rel = path.join(dir, e.name);
        return e.isDirectory() ? tests(rel) : e.name.endsWith('.test.ts') ? [rel] : [];
      });
    // Checks of the whole tree sit at the top.
    const WHOLE_TREE = [
      'layers.test.ts',
      'docs-links.test.ts',
      'stream-errors.test.ts',
      'line-width.test.ts',
      'non-null-ceiling.test.ts',
    ];
    const strays = tests('test/unit')
      .map((t) => path.relative('test/unit', t))
      .filter((t) => !WHOLE_TREE.includes(t))
      .filter((t) => {
        const source = t.replace(/\.test\.ts$/, '');
        return !['.ts', '.js', ''].some((ext) => fs.existsSync(path.join(ROOT, source + ext)));
      });
    expect(strays).toEqual([]);
  });

  it(`keeps every module within ${MAX_LINES} lines`, () => {
    const long = files.flatMap((file) => {
      const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;
      return lines > MAX_LINES ? [`${file}: ${lines}`] : [];
    });
    expect(long).toEqual([]);
  });

  it(`keeps every folder within ${MAX_FILES} modules beside its subfolders`, () => {
    const byFolder = new Map<string, number>();
    // Migrations are a history in order, one file a change: they only grow.
    for (const file of files.filter((f) => !under(f, 'db/migrations')))
      byFolder.set(path.dirname(file), (byFolder.get(path.dirname(file)) ?? 0) + 1);
    const crowded = [...byFolder].filter(([, n]) => n > MAX_FILES).map(([dir]) => dir);
    expect(crowded).toEqual([]);
  });
});
