// The policy for errors nobody handled (lib/unhandled.ts), in a child process of its own: an 'error'
// event without a listener and a rejection nobody awaited are logged with their stack and the process
// goes on; an error marked fatal ends it with code 1.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NODE_SCRIPT_FLAGS } from '../../../lib/threads/node-script.ts';
import { ROOT } from '../../support/processes.ts';

const run = promisify(execFile);

const script = (body: string) => `
import { EventEmitter } from 'node:events';
import { createLogger } from './lib/log.ts';
import { installUnhandledPolicy, markFatal } from './lib/unhandled.ts';
installUnhandledPolicy(createLogger('info', 'test'));
${body}
`;

async function node(body: string): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(process.execPath, [...NODE_SCRIPT_FLAGS, '--input-type=module', '-e', script(body)], {
      cwd: ROOT,
      timeout: 20_000,
    });
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '' };
  }
}

describe('errors nobody handled', () => {
  it('logs an unhandled error event and rejection with their stacks, and the process goes on', async () => {
    const { code, stdout } = await node(`
      setTimeout(() => new EventEmitter().emit('error', new Error('a socket broke')), 10);
      setTimeout(() => void Promise.reject(new Error('nobody awaited this')), 50);
      setTimeout(() => console.log('still serving'), 200);
    `);
    expect(code).toBe(0);
    expect(stdout).toContain('still serving');
    const lines = stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.err?.message)).toEqual(['a socket broke', 'nobody awaited this']);
    expect(lines[0].err.stack).toMatch(/a socket broke\n\s+at /);
    expect(lines.map((l) => l.origin)).toEqual(['uncaughtException', 'unhandledRejection']);
    expect(lines[0].msg).toMatch(/the process goes on/);
  });

  it('ends the process with code 1 on an error marked fatal', async () => {
    const { code, stdout } = await node(`
      setTimeout(() => { throw markFatal(new Error('the database thread died')); }, 10);
      setTimeout(() => console.log('still serving'), 500);
    `);
    expect(code).toBe(1);
    expect(stdout).not.toContain('still serving');
    expect(stdout).toMatch(/the database thread died/);
  });
});
