// Real Postgres, Redis, MinIO and a Temporal dev server on loopback, started by a suite for itself so that it
// can stop and restart them (test/faults/). Each from this machine's binaries: Debian's Postgres and
// Redis (scripts/setup --ci installs them), MinIO and the Temporal CLI (npm test's setup finds or builds it).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { canConnect } from '../../lib/can-connect.ts';
import { devServerArgs } from '../../lib/temporal/dev-server.ts';
import { freePort, tempDir } from './processes.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ready: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`${what} did not start within ${ms / 1000} s`);
    await sleep(100);
  }
}

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const version = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a))[0] : undefined;
  if (!version)
    throw new Error("no Postgres under /usr/lib/postgresql: run scripts/setup --ci (it installs Debian's postgresql)");
  return path.join(root, version, 'bin');
}

export interface PostgresServer {
  url: string;
  /** pg_ctl stop in this mode (fast: sessions ended cleanly; immediate: no shutdown, recovery at start). */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Postgres refuses to run as root: as the `postgres` user then. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin();
  const dir = await tempDir('pg-faults');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  const as = (cmd: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', cmd, ...args]) : run(cmd, args);
  if (asRoot) {
    fs.chmodSync(dir, 0o777);
    await run('chown', ['-R', 'postgres', dir]);
  }
  await as(path.join(bin, 'initdb'), ['-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust']);
  const pgctl = (...args: string[]) => as(path.join(bin, 'pg_ctl'), ['-D', path.join(dir, 'data'), ...args]);
  const start = async () => {
    await pgctl(
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    );
  };
  await start();
  await run(path.join(bin, 'psql'), [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-U',
    'postgres',
    '-qc',
    'create database netops',
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/netops`,
    stop: async (mode) => void (await pgctl('-m', mode, '-w', 'stop')),
    start,
    close: async () => {
      await pgctl('-m', 'immediate', 'stop').catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ChildServer {
  /** Where it listens: `127.0.0.1:<port>`. */
  address: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A server this suite runs as a child process on `port`, stopped with `signal`, ready once it accepts connections. */
async function childServer(
  command: string,
  args: string[],
  port: number,
  dir: string,
  signal: NodeJS.Signals,
  readyMs: number,
  env: Record<string, string> = {},
): Promise<ChildServer> {
  let child: ChildProcess | undefined;
  let failed: Error | undefined;
  const start = async () => {
    failed = undefined;
    child = spawn(command, args, { stdio: 'ignore', env: { ...process.env, ...env } });
    child.once('error', (err) => (failed = err)); // a missing binary: said, not a crash of the test run
    await until(
      command,
      async () => {
        if (failed)
          throw new Error(
            `${command} could not start: ${failed.message} (scripts/setup --ci installs what the fault suite runs)`,
          );
        return canConnect({ host: '127.0.0.1', port });
      },
      readyMs,
    );
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null || failed) return;
    await new Promise((r) => {
      c.once('exit', r);
      c.kill(signal);
    });
  };
  await start();
  return {
    address: `127.0.0.1:${port}`,
    stop,
    start,
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Redis without persistence; stopped by SIGKILL (as a crash or an OOM kill stops it). */
export async function startRedis(): Promise<ChildServer & { url: string }> {
  const port = await freePort();
  const dir = await tempDir('redis-faults');
  const server = await childServer(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    port,
    dir,
    'SIGKILL',
    30_000,
  );
  return { ...server, url: `redis://${server.address}` };
}

/** A Temporal dev server with its database in a file, so that a restart keeps every workflow. */
export async function startTemporal(): Promise<ChildServer> {
  const port = await freePort();
  const dir = await tempDir('temporal-faults');
  const args = devServerArgs({ port, dbFile: path.join(dir, 'temporal.db'), logLevel: 'error' });
  return childServer(process.env.TEMPORAL_CLI || 'temporal', args, port, dir, 'SIGTERM', 60_000);
}

/** MinIO (the S3 server of the tests) with its data in a folder, so that a restart keeps every object. */
export async function startMinio(): Promise<ChildServer & { env: Record<string, string> }> {
  const port = await freePort();
  const dir = await tempDir('minio-faults');
  const [user, password] = ['netops-faults', 'netops-faults-secret'];
  const args = [
    'server',
    path.join(dir, 'data'),
    '--address',
    `127.0.0.1:${port}`,
    '--console-address',
    `127.0.0.1:${await freePort()}`,
    '--quiet',
  ];
  const server = await childServer('minio', args, port, dir, 'SIGTERM', 60_000, {
    MINIO_ROOT_USER: user,
    MINIO_ROOT_PASSWORD: password,
  });
  return {
    ...server,
    env: {
      S3_ENDPOINT: `http://${server.address}`,
      S3_ACCESS_KEY: user,
      S3_SECRET_KEY: password,
      S3_BUCKET: 'netops-faults',
    },
  };
}

/**
 * A TCP proxy to `port` on loopback that can stop passing bytes without closing anything, as a network
 * partition or a host that vanished does (no reset, no FIN: the client's socket just hears nothing).
 */
export async function startFreezingProxy(
  port: number,
): Promise<{ port: number; connections: () => number; freeze(): void; thaw(): void; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let frozen = false;
  let connections = 0;
  const server = net.createServer((client) => {
    connections += 1;
    const upstream = net.connect(port, '127.0.0.1');
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('data', (chunk) => to.write(chunk));
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
      if (frozen) from.pause();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    freeze: () => {
      frozen = true;
      for (const s of sockets) s.pause();
    },
    thaw: () => {
      frozen = false;
      for (const s of sockets) s.resume();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
