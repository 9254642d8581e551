// Starting the real service as a child process, the way a user does (`npm start`, `npm run admin`).
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { NODE_SCRIPT_FLAGS, SERVICE_MALLOC_ENV } from '../../lib/threads/node-script.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
/** Variables that select a real backend; the embedded target runs with none of them. */
export const BACKEND_VARS = [
  'DATABASE_URL',
  'REDIS_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_BUCKET',
  'TEMPORAL_ADDRESS',
  'PAYLOAD_KEY',
];

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A loopback port nothing listens on (one just freed): a connection to it is refused. */
export const closedPort = freePort;

/**
 * The variable naming the test run's own folder, where tempDir makes its folders: global setup makes
 * it and removes it, with all in it, when the run ends (the suites' databases, Temporal histories and
 * captures, left behind, once filled this machine's disk and failed CI with ENOSPC; vitest ends its
 * workers with SIGTERM, so nothing of theirs can clean up at exit). Unset: the system's temporary folder.
 */
export const TEST_RUN_DIR = 'NETOPS_TEST_RUN_DIR';

export function tempDir(prefix: string): Promise<string> {
  return fs.mkdtemp(path.join(process.env[TEST_RUN_DIR] ?? os.tmpdir(), `netops-${prefix}-`));
}

export interface AppProcess {
  baseUrl: string;
  env: Record<string, string>;
  output: () => string;
  temporalAddress: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts of an app whose port was taken between our pick and its bind. */
const PORT_CLASH_STARTS = 3;

/**
 * `env` is the whole environment of the child, over a copy of ours without backend variables. A port
 * picked here is free when picked, yet another process (an embedded Temporal server picks ports of its
 * own) may bind it before the app does: the app is then started again on new ports (at most 3 starts).
 */
export async function startApp(env: Record<string, string>, entry = 'workers/all.ts'): Promise<AppProcess> {
  for (let start = 1; ; start++) {
    try {
      return await launchApp(env, entry);
    } catch (error) {
      if (start >= PORT_CLASH_STARTS || !/EADDRINUSE/.test(String(error))) throw error;
    }
  }
}

async function launchApp(env: Record<string, string>, entry: string): Promise<AppProcess> {
  const port = env.PORT || String(await freePort());
  // Started as `npm start` starts it (its malloc settings too), unless `env` says otherwise.
  const fullEnv: Record<string, string> = {
    ...baseEnv(),
    ...SERVICE_MALLOC_ENV,
    LOG_LEVEL: 'warn',
    ...env,
    PORT: port,
  };
  if (!fullEnv.TEMPORAL_ADDRESS) {
    fullEnv.TEMPORAL_DEV_PORT ??= String(await freePort());
    fullEnv.TEMPORAL_UI_PORT ??= String(await freePort());
  }
  const child = spawn(process.execPath, [...NODE_SCRIPT_FLAGS, ...profiling(), entry], {
    cwd: ROOT,
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitReady(child, baseUrl, () => output, fullEnv.ROLE?.startsWith('worker:') ?? false);
  // An app that ends while in use says why (every later failure of the run is only its echo).
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping)
      process.stderr.write(
        `\napp ${child.pid} (${entry}) ended while in use (code ${code}, signal ${signal}); its last ` +
          `output:\n${output.slice(-8000)}\n`,
      );
  });
  return {
    baseUrl,
    env: fullEnv,
    output: () => output,
    temporalAddress: fullEnv.TEMPORAL_ADDRESS ?? `127.0.0.1:${fullEnv.TEMPORAL_DEV_PORT}`,
    pid: child.pid!,
    stop: () => {
      stopping = true;
      return stopChild(child);
    },
  };
}

/**
 * An API process of its own on the Temporal server at `temporalAddress` (a suite's), with its own data in a new
 * folder named from `prefix` and its own payload key, and `env` over that: a test that holds its connections
 * or its CPU blocks no other test.
 */
export async function startOwnApi(
  temporalAddress: string,
  prefix: string,
  env: Record<string, string> = {},
): Promise<AppProcess> {
  return startApp({
    ROLE: 'api',
    TEMPORAL_ADDRESS: temporalAddress,
    PAYLOAD_KEY: randomBytes(32).toString('base64'),
    DATA_DIR: await tempDir(prefix),
    ...env,
  });
}

/** BENCH_CPU_PROF_DIR: the app writes a V8 CPU profile of each of its threads there when it stops (for benchmarks). */
function profiling(): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** Vitest mirrors Vite's import.meta.env into process.env; BASE_URL=/ among them is not ours. */
const VITE_VARS = ['BASE_URL', 'MODE', 'DEV', 'PROD', 'SSR'];

export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !BACKEND_VARS.includes(k) && !VITE_VARS.includes(k)) env[k] = v;
  }
  return env;
}

async function waitReady(
  child: ChildProcess,
  baseUrl: string,
  output: () => string,
  workerOnly: boolean,
): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`app exited with ${child.exitCode}:\n${output()}`);
    // Ready means both: the process printed its start lines, and (for an API) /readyz answers 200.
    if (/ ready \(/.test(output()) && (workerOnly || (await isReady(baseUrl)))) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`app not ready within 120 s:\n${output()}`);
}

async function isReady(baseUrl: string): Promise<boolean> {
  try {
    return (await fetch(`${baseUrl}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const run = promisify(execFile);

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a project script with Node's type stripping, as the npm scripts do. */
export async function runScript(script: string, args: string[], env: Record<string, string>): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...NODE_SCRIPT_FLAGS, script, ...args], {
      cwd: ROOT,
      env,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/**
 * A cluster of its own on one machine, one process per role: an API (with the embedded Temporal server
 * and database) and the workers `role` adds, and an enterprise key. For tests that kill a worker.
 */
export async function startCluster(name: string, env: Record<string, string> = {}) {
  const processes: AppProcess[] = [];
  const api = await startApp({ ROLE: 'api', DATA_DIR: await tempDir(name), ...env });
  processes.push(api);
  const created = await runScript(
    'scripts/admin.ts',
    ['create-key', '--email', `${name}@example.test`, '--plan', 'enterprise'],
    api.env,
  );
  return {
    api,
    key: JSON.parse(created.stdout).api_key as string,
    /** Starts a worker of `role` against the cluster's Temporal server and stores. */
    async role(role: string): Promise<AppProcess> {
      const p = await startApp({ ...api.env, ROLE: role, PORT: '' });
      processes.push(p);
      return p;
    },
    stop: () => Promise.all(processes.reverse().map((p) => p.stop())).then(() => {}),
  };
}
