// The service's malloc settings and V8 flags are set wherever its process is started: npm start, the image,
// the tests' apps (test/support/processes.ts). glibc and V8 read them as a process (an isolate) starts, so
// each start sets them.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NODE_SCRIPT_FLAGS, SERVICE_MALLOC_ENV, SERVICE_NODE_FLAGS } from '../../../../lib/threads/node-script.ts';
import { ROOT } from '../../../support/processes.ts';

const run = promisify(execFile);
const settings = Object.entries(SERVICE_MALLOC_ENV).map(([name, value]) => `${name}=${value}`);
const start = () => JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
const image = () => fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

describe('SERVICE_MALLOC_ENV', () => {
  it('is what npm start and the image set', () => {
    for (const setting of settings) {
      expect(start().split(' ')).toContain(setting);
      expect(image()).toMatch(new RegExp(`^ENV .*\\b${setting}\\b`, 'm'));
    }
  });
});

/**
 * What V8's memory reducer says in a process started with `flags` that fills a heap, drops it and idles
 * 10 s: its timer's lines, which come the reducer's delay after the collection.
 */
async function reducerLines(flags: readonly string[]): Promise<string[]> {
  const script = [
    'let kept = [];',
    'for (let i = 0; i < 2_000_000; i++) kept.push({ i, s: String(i) });',
    'kept = null;',
    'await new Promise((r) => setTimeout(r, 10_000));',
  ].join('\n');
  const { stdout } = await run(
    process.execPath,
    [
      ...flags,
      ...NODE_SCRIPT_FLAGS,
      '--trace-gc-verbose',
      '--trace-memory-reducer',
      '--input-type=module',
      '-e',
      script,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout.split('\n').filter((line) => line.includes('Memory reducer:'));
}

describe('SERVICE_NODE_FLAGS', () => {
  it('are what npm start and the image start Node with', () => {
    const imageCommand = /^CMD (\[.*\])$/m.exec(image())?.[1];
    for (const flag of SERVICE_NODE_FLAGS) {
      expect(start().split(' ')).toContain(flag);
      expect(JSON.parse(imageCommand ?? '[]')).toContain(flag);
    }
  });

  it("keep V8's memory reducer from a quiet heap 8 s after its last full collection", { timeout: 60_000 }, async () => {
    const [byDefault, service] = await Promise.all([reducerLines([]), reducerLines(SERVICE_NODE_FLAGS)]);
    expect(byDefault.length).toBeGreaterThan(0); // V8 as it is: the reducer's timer comes within the 10 s
    expect(service).toEqual([]);
  });
});
