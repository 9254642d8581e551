// The source tree the checks of the whole tree read (test/unit/layers.test.ts, stream-errors.test.ts):
// every folder of code we ship or run, and its TypeScript files as paths from the root.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './processes.ts';

export const SOURCE_DIRS = [
  'api',
  'activities',
  'bench',
  'cli',
  'contract',
  'db',
  'domain',
  'lib',
  'scripts',
  'workers',
  'workflows',
];

/** The .ts files below `dir` (a path from the root), as paths from the root. */
export function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}
