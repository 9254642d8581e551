// Postgres through `pg` when DATABASE_URL is set; otherwise embedded Postgres (PGlite) under DATA_DIR.
// PGlite lives in one process. That process also serves it on a Unix socket under DATA_DIR, so the
// admin command, or any other process pointed at the same DATA_DIR, talks to the same database
// through `pg` instead of opening the files a second time.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { canConnect } from '../lib/can-connect.ts';
import type { Database } from './schema.ts';
import { migrateToLatest } from './migrate.ts';

export interface DatabaseHandle {
  db: Kysely<Database>;
  /** `postgres` (DATABASE_URL), `pglite` (opened here), or `pglite-socket` (another process's PGlite). */
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
}

const SOCKET_PORT = 5432; // only names the socket file: `.s.PGSQL.5432`, as libpq expects

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  const handle = options.databaseUrl
    ? openPostgres({ connectionString: options.databaseUrl }, 'postgres', options.maxConnections)
    : await openEmbedded(options.dataDir, options.maxConnections);
  if (options.migrate !== false) {
    try {
      await migrateToLatest(handle.db);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }
  return handle;
}

function openPostgres(config: pg.PoolConfig, kind: DatabaseHandle['kind'], max = 10): DatabaseHandle {
  // No JIT compilation: our statements are short, and JIT only ever triggered on the trimming of
  // captured requests (its cost estimate grows with the webhooks trimmed at once), compiling for
  // longer than the statement ran (seen in a profile of bench:capture).
  const pool = new pg.Pool({ ...config, max, ...(kind === 'postgres' ? { options: '-c jit=off' } : {}) });
  pool.on('error', () => {}); // an idle client's error is reported by the next query instead
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind, parallelism: kind === 'postgres' ? max : 1, close: () => db.destroy() };
}

async function openEmbedded(dataDir: string, max?: number): Promise<DatabaseHandle> {
  const socketDir = path.join(dataDir, 'run');
  const socketPath = path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`);
  if (await canConnect({ path: socketPath })) {
    return openPostgres({ host: socketDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres' }, 'pglite-socket', max ?? 4);
  }
  await fs.mkdir(socketDir, { recursive: true });
  await fs.rm(socketPath, { force: true }); // left by a process that did not stop cleanly

  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const pglite = await PGlite.create(path.join(dataDir, 'pglite'));
  const server = new PGLiteSocketServer({ db: pglite, path: socketPath, maxConnections: 16 });
  await server.start();
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    kind: 'pglite',
    parallelism: 1,
    async close() {
      await server.stop().catch(() => {});
      await db.destroy(); // closes pglite
    },
  };
}
