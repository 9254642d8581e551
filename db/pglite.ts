// PGlite, the embedded database, on a thread of its own. It runs Postgres compiled to WASM: every
// statement is CPU on the thread that holds it. Held on the API's own thread it took ~40 % of that
// thread at full capture rate (bench:capture's CPU profiles), time the API could not spend answering.
// The thread serves it on the Unix socket (db/pglite-socket.ts) that other processes use too, so this
// process reaches it the same way they do, through `pg`.
import type { PGlite } from '@electric-sql/pglite';
import { Worker } from 'node:worker_threads';

/**
 * PGlite on `dir`, with a 32 MB buffer pool rather than Postgres's 128 MB: PGlite's pool is this
 * process's memory (measured: 368 MB RSS open with 128 MB, 224 MB with 32 MB), and the files it
 * reads are in the OS's page cache anyway.
 */
export async function openPglite(dir: string) {
  const { PGlite } = await import('@electric-sql/pglite');
  return PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'] });
}

/**
 * How often the thread looks for tables due for a vacuum. PGlite is one Postgres session with no
 * autovacuum worker: without one the space of deleted rows (every trimmed capture, every rewritten
 * shard report) is never used again and the files only grow (100,000 rows deleted of 200,000, then
 * 100,000 inserted: 14 MB became 21; vacuumed between, it stayed 14).
 */
export const VACUUM_EVERY_MS = 20_000;

/**
 * Whether a table (`s`, its statistics; `c`, its pg_class row) passes one of autovacuum's own
 * thresholds, at Postgres's defaults: dead rows over 50 and a fifth of the live ones; rows inserted
 * since its last vacuum over 1,000 and a fifth of the live ones (so that an append-only table's
 * visibility map is kept); transaction or multixact ids old enough to be frozen before they wrap around.
 */
const passes = (s: string, c: string) => `(coalesce(${s}.n_dead_tup, 0) > 50 + 0.2 * coalesce(${s}.n_live_tup, 0)
      or coalesce(${s}.n_ins_since_vacuum, 0) > 1000 + 0.2 * coalesce(${s}.n_live_tup, 0)
      or age(${c}.relfrozenxid) > current_setting('autovacuum_freeze_max_age')::bigint
      or mxid_age(${c}.relminmxid) > current_setting('autovacuum_multixact_freeze_max_age')::bigint)`;

/**
 * The tables due for a vacuum, catalogs included, judged as autovacuum judges them: each on its own
 * figures and each by its TOAST table's (which a table's VACUUM vacuums with it; a jsonb rewritten in
 * place leaves its dead values there, not in the table).
 */
const DUE_FOR_VACUUM = `select format('%I.%I', n.nspname, c.relname) as name
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  left join pg_stat_all_tables s on s.relid = c.oid
  left join pg_class tc on tc.oid = c.reltoastrelid
  left join pg_stat_all_tables ts on ts.relid = c.reltoastrelid
  where c.relkind in ('r', 'm') and c.relpersistence in ('p', 'u')
    and (${passes('s', 'c')} or (tc.oid is not null and ${passes('ts', 'tc')}))
  order by coalesce(s.n_dead_tup, 0) + coalesce(ts.n_dead_tup, 0) desc`;

/**
 * Vacuums the tables due for it, one statement each, so that clients take their turns between them:
 * a VACUUM of the whole database walks every table and catalog while everyone waits (24-80 ms on a
 * new database with nothing to reclaim; each minute, a pause in every status poll and capture it met).
 * The figures it judges by start again from zero when the database is opened (PGlite keeps none):
 * the thread vacuums the whole database once when it opens it, before serving anyone. A table dropped
 * meanwhile is passed over. Resolves with the tables it vacuumed.
 */
export async function vacuumDue(pglite: Pick<PGlite, 'query' | 'exec'>): Promise<string[]> {
  const { rows } = await pglite.query<{ name: string }>(DUE_FOR_VACUUM);
  const vacuumed: string[] = [];
  for (const { name } of rows) {
    try {
      await pglite.exec(`VACUUM ${name}`);
      vacuumed.push(name);
    } catch {
      // Dropped since the query (or renamed): nothing of it to vacuum.
    }
  }
  return vacuumed;
}

export interface PgliteThread {
  /**
   * Stops serving (clients are disconnected, open transactions rolled back) and closes the database,
   * its files written.
   */
  close(): Promise<void>;
}

/** What the thread tells this one. */
export type ThreadReport = { ready: true } | { closed: true } | { failed: string };

/**
 * Opens the database in `dir` on a new thread and serves it on `socketPath`; resolves once clients
 * can connect. Should the thread die (out of memory, say), `onLost` is told why: nothing in this
 * process can reach the database from then on.
 */
export async function startPgliteThread(
  dir: string,
  socketPath: string,
  onLost: (err: Error) => void,
  { vacuumEveryMs = VACUUM_EVERY_MS }: { vacuumEveryMs?: number } = {},
): Promise<PgliteThread> {
  // The thread's garbage is short-lived (each statement's messages): a young generation of 4 MB
  // rather than V8's default of up to 48 keeps the process smaller (test/integration/stream-load.test.ts,
  // RSS added 6 s after 1,000 live streams opened: 62-148 MB in 6 runs, 141-164 MB in 4 runs without).
  const thread = new Worker(new URL('./pglite-thread.ts', import.meta.url), {
    workerData: { dir, socketPath, vacuumEveryMs },
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  });
  let closing = false;
  const exited = new Promise<number>((resolve) => thread.once('exit', resolve));
  const report = (wanted: 'ready' | 'closed') =>
    new Promise<void>((resolve, reject) => {
      const onMessage = (m: ThreadReport) => {
        if (wanted in m) resolve();
        else if ('failed' in m) reject(new Error(`the embedded database in ${dir}: ${m.failed}`));
      };
      thread.on('message', onMessage);
      thread.once('error', reject);
      void exited.then((code) =>
        reject(new Error(`the embedded database's thread ended (exit code ${code}) before it was ${wanted}`)),
      );
    });
  try {
    await report('ready');
  } catch (err) {
    await thread.terminate();
    const message = (err as Error).message;
    throw message.includes(dir) ? err : new Error(`the embedded database in ${dir}: ${message}`);
  }
  void exited.then((code) => {
    if (!closing)
      onLost(new Error(`the embedded database's thread ended unexpectedly (exit code ${code}); restart this process`));
  });
  thread.on('error', () => {}); // 'exit' follows, and tells
  return {
    async close() {
      if (closing) return exited.then(() => {});
      closing = true;
      const closed = report('closed');
      thread.postMessage('close');
      try {
        await closed;
      } finally {
        await thread.terminate(); // PGlite is closed (or failed to): nothing of the thread is needed
      }
    },
  };
}
