// The real `netops` binary as a child process (bin/netops.js, over the build global setup makes), run
// with this Node and no flags, as a user's shell would run it.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT, baseEnv, tempDir } from './processes.ts';

export const NETOPS_BIN = path.join(ROOT, 'bin/netops.js');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has ended. */
  ended: Promise<CliRun>;
  /** Waits until stdout or stderr matches `pattern` (or throws with both after `ms`). */
  waitFor(pattern: RegExp, ms?: number): Promise<void>;
}

/** An environment for the command: a config folder of its own, the service and key given by variables. */
export async function cliEnv(
  url: string | undefined,
  key: string | undefined,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  const env: Record<string, string> = { ...baseEnv(), XDG_CONFIG_HOME: await tempDir('cli-config'), ...extra };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  delete env.NETOPS_URL;
  delete env.NETOPS_API_KEY;
  if (url) env.NETOPS_URL = url;
  if (key) env.NETOPS_API_KEY = key;
  return { ...env, ...extra };
}

export function startCli(args: string[], env: Record<string, string>, input?: string): CliProcess {
  const child = spawn(process.execPath, [NETOPS_BIN, ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.end(input);
  const ended = new Promise<CliRun>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    ended,
    async waitFor(pattern, ms = 30_000) {
      const until = Date.now() + ms;
      while (!pattern.test(stdout) && !pattern.test(stderr)) {
        if (Date.now() > until || child.exitCode !== null)
          throw new Error(`netops ${args.join(' ')} never printed ${pattern}:\nstdout: ${stdout}\nstderr: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** Runs `netops args` to its end. */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliRun> {
  return startCli(args, env, input).ended;
}
