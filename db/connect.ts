// Postgres through `pg` when DATABASE_URL is set; otherwise embedded Postgres (PGlite) under DATA_DIR.
// PGlite lives in one process, on a thread of its own (db/pglite.ts), which serves it on a Unix socket
// under DATA_DIR: that process, the admin command, or any other process pointed at the same DATA_DIR
// talk to it through `pg` alike, instead of opening the files a second time.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { canConnect } from '../lib/can-connect.ts';
import { runNodeScript } from '../lib/threads/node-script.ts';
import { markFatal } from '../lib/unhandled.ts';
import type { Database } from './schema.ts';
import { migrateToLatest } from './migrate.ts';
import { availablePool } from './availability.ts';
import { startPgliteThread } from './pglite.ts';

export interface DatabaseHandle {
  db: Kysely<Database>;
  /**
   * `postgres` (DATABASE_URL), `pglite` (opened by this process, on its thread), or `pglite-socket`
   * (another process's PGlite).
   */
  kind: 'postgres' | 'pglite' | 'pglite-socket';
  /** Statements it can run at the same time: the pool's size on Postgres; 1 on PGlite, which runs one at a time. */
  parallelism: number;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** Pool size for `pg`. */
  maxConnections?: number;
  migrate?: boolean;
  /** QUERY_TIMEOUT_MS unless given (the fault suite gives a shorter one); 0: none. */
  queryTimeoutMs?: number;
}

/** How long a new database connection may take before the request that needs it is answered 503. */
export const CONNECT_TIMEOUT_MS = 3000;
/**
 * How long a statement's answer may take on Postgres before it is an outage: a database cut off
 * without a reset (a partition, a host gone) would otherwise hold the request until TCP gives up,
 * minutes later. Our statements take milliseconds; the slowest (a search through a large webhook) well
 * under a second.
 */
export const QUERY_TIMEOUT_MS = 15_000;

/**
 * A client class whose connect gives up after CONNECT_TIMEOUT_MS and whose statements after
 * `queryTimeoutMs`, with TCP keep-alive.
 */
function timedClient(queryTimeoutMs: number): typeof pg.Client {
  return class TimedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({
        ...config,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {}),
        keepAlive: true,
        keepAliveInitialDelayMillis: 5000,
      });
    }
  };
}
const SOCKET_PORT = 5432; // only names the socket file: `.s.PGSQL.5432`, as libpq expects

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  const handle = options.databaseUrl
    ? openPostgres(
        { connectionString: options.databaseUrl },
        'postgres',
        options.maxConnections,
        options.queryTimeoutMs,
      )
    : await openEmbedded(options.dataDir, options.maxConnections);
  if (options.migrate !== false) {
    // Migrations may rewrite or index large tables: on a connection of their own, without the statement timeout.
    const migrating = options.databaseUrl
      ? openPostgres({ connectionString: options.databaseUrl }, 'postgres', 1, 0)
      : handle;
    try {
      await migrateToLatest(migrating.db);
    } catch (err) {
      await handle.close();
      throw err;
    } finally {
      if (migrating !== handle) await migrating.close();
    }
  }
  return handle;
}

function openPostgres(
  config: pg.PoolConfig,
  kind: DatabaseHandle['kind'],
  max = 10,
  queryTimeoutMs = QUERY_TIMEOUT_MS,
): DatabaseHandle {
  // No JIT compilation: our statements are short, and JIT only ever triggered on the trimming of
  // captured requests (its cost estimate grows with the webhooks trimmed at once), compiling for
  // longer than the statement ran (seen in a profile of bench:capture).
  // A connection that cannot be made in CONNECT_TIMEOUT_MS, or a statement unanswered for
  // QUERY_TIMEOUT_MS, is an outage (503), not a request left hanging.
  // The timeout bounds making a connection, not the wait for a free one in a busy pool (pg-pool's own
  // connectionTimeoutMillis bounds both: a busy database would have answered "unavailable").
  // (The embedded database's socket is this machine's: no timeout there, its thread answers when its turn comes.)
  // The server gives up on a statement a second before the client does: a slow one is cancelled, not
  // left to commit after its caller was answered 503; the client's own timeout finds a silent server.
  const statementTimeout = queryTimeoutMs >= 2000 ? ` -c statement_timeout=${queryTimeoutMs - 1000}` : '';
  const pool = new pg.Pool({
    ...config,
    max,
    ...(kind === 'postgres' ? { options: `-c jit=off${statementTimeout}`, Client: timedClient(queryTimeoutMs) } : {}),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: availablePool(pool) }) });
  return { db, kind, parallelism: kind === 'postgres' ? max : 1, close: () => db.destroy() };
}

async function openEmbedded(dataDir: string, max?: number): Promise<DatabaseHandle> {
  const socketDir = path.join(dataDir, 'run');
  const socketPath = path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`);
  const overSocket = (kind: DatabaseHandle['kind']) =>
    openPostgres({ host: socketDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres' }, kind, max ?? 4);
  if (await canConnect({ path: socketPath })) return overSocket('pglite-socket');
  await fs.mkdir(socketDir, { recursive: true });

  const pgliteDir = path.join(dataDir, 'pglite');
  // A new database is made (initdb) in a process of its own: made here, it left ~300 MB this
  // process never gave back (measured: 656 MB RSS after the first open, 240 MB opening one made before).
  if (!(await fs.stat(path.join(pgliteDir, 'PG_VERSION')).catch(() => null))) await createEmbedded(pgliteDir);
  // Without its database this process can do nothing right: it ends, loudly, for its supervisor to restart it.
  const thread = await startPgliteThread(pgliteDir, socketPath, (err) =>
    process.nextTick(() => {
      throw markFatal(err);
    }),
  );
  const handle = overSocket('pglite');
  return {
    ...handle,
    async close() {
      await handle.close();
      await thread.close();
    },
  };
}

/**
 * Makes the embedded database in `dir` (create-embedded.ts, in a child process): in a folder beside
 * it, moved into place once whole, so that a creation cut short never leaves a half-made database
 * that the next start would take for a whole one.
 */
async function createEmbedded(dir: string): Promise<void> {
  const script = fileURLToPath(new URL('./create-embedded.ts', import.meta.url));
  const building = `${dir}.creating-${process.pid}`;
  await fs.rm(building, { recursive: true, force: true });
  await runNodeScript(script, [building], `creating the embedded database in ${dir}`);
  if (await fs.stat(path.join(dir, 'PG_VERSION')).catch(() => null)) {
    await fs.rm(building, { recursive: true, force: true }); // another process sharing DATA_DIR made it meanwhile
    return;
  }
  await fs.rmdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT')
      throw new Error(`${dir} exists but holds no database (no PG_VERSION): move it away, or point DATA_DIR elsewhere`);
  });
  await fs.rename(building, dir);
}
