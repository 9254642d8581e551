// The embedded Temporal engine: the `temporal` CLI's development server, a real Temporal server
// (frontend, history, matching, SQLite persistence and the web UI in one process).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { canConnect } from '../can-connect.ts';

export interface DevServerOptions {
  cli: string;
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
  /** How long to wait for the frontend to accept connections. */
  startTimeoutMs?: number;
  /** The server ended on its own (`why`): it is started again in `waitMs`. */
  onRestart?: (why: string, waitMs: number) => void;
}

export interface DevServer {
  address: string;
  uiUrl: string;
  /** The server's process (benchmarks read its CPU time). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts tried when a port the server picked itself was taken before it bound it. */
const START_ATTEMPTS = 3;

export class DevServerError extends Error {
  override name = 'DevServerError';
}

/** The `temporal` CLI's arguments: a dev server on loopback, its database in `dbFile`, no web UI without `uiPort`. */
export function devServerArgs(options: { port: number; uiPort?: number; dbFile: string; logLevel: string }): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    ...(options.uiPort === undefined ? ['--headless'] : ['--ui-port', String(options.uiPort)]),
    '--db-filename',
    options.dbFile,
    '--log-level',
    options.logLevel,
  ];
}

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const dbDir = path.join(options.dataDir, 'temporal');
  await fs.mkdir(dbDir, { recursive: true });
  if (await canConnect({ host: '127.0.0.1', port: options.port })) {
    throw new DevServerError(
      `Port ${options.port} is already in use: set TEMPORAL_DEV_PORT to a free port, or TEMPORAL_ADDRESS ` +
        `to use that server`,
    );
  }
  const args = devServerArgs({
    port: options.port,
    uiPort: options.uiPort,
    dbFile: path.join(dbDir, 'dev.db'),
    logLevel: 'warn',
  });
  if (options.namespace !== 'default') args.push('--namespace', options.namespace);

  let child: ChildProcess;
  let exited: Promise<string>;
  let stopping = false;
  /** Runs the server and waits until its frontend accepts connections. */
  const launch = async () => {
    try {
      child = spawn(options.cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
      throw new DevServerError(`Cannot run the Temporal CLI ${JSON.stringify(options.cli)}: ${(err as Error).message}`);
    }
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    const launched = child;
    exited = new Promise<string>((resolve) => {
      launched.once('error', (err) =>
        resolve(
          `cannot run ${JSON.stringify(options.cli)}: ${err.message} (npm start installs it; or set TEMPORAL_CLI)`,
        ),
      );
      launched.once('exit', (code, signal) =>
        resolve(`exited with ${signal ?? code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`),
      );
    });
    const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
    let early: string | undefined;
    void exited.then((why) => (early = why));
    while (!(await canConnect({ host: '127.0.0.1', port: options.port }))) {
      if (early) throw new DevServerError(`Temporal dev server ${early}`);
      if (Date.now() > deadline) {
        launched.kill('SIGKILL');
        throw new DevServerError(
          `Temporal dev server did not listen on port ${options.port} within ${options.startTimeoutMs ?? 60_000} ms`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    // A server that ends on its own (killed, crashed) is started again on the same database file, so
    // every workflow goes on; meanwhile what needs it answers 503 (lib/temporal/jobs.ts).
    void exited.then(async (why) => {
      for (let wait = 1000; !stopping; wait = Math.min(wait * 2, 10_000)) {
        options.onRestart?.(why, wait);
        await new Promise((r) => setTimeout(r, wait));
        if (stopping) return;
        try {
          await launch();
          return;
        } catch (err) {
          why = (err as Error).message;
        }
      }
    });
  };

  const stopOnExit = () => child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  // The server picks free ports of its own (its HTTP API, metrics, the services' membership), each
  // free when picked and bound a moment later: another process may take one between. Started again,
  // it picks others.
  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (err) {
      if (attempt === START_ATTEMPTS || !/address already in use/.test((err as Error).message)) {
        process.removeListener('exit', stopOnExit);
        throw err;
      }
    }
  }

  return {
    address: `127.0.0.1:${options.port}`,
    uiUrl: `http://127.0.0.1:${options.uiPort}`,
    get pid() {
      return child.pid;
    },
    async stop() {
      stopping = true;
      process.removeListener('exit', stopOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
