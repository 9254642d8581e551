// What the load benchmarks read of the machine: processes' CPU from /proc, the Postgres server's
// write-ahead log position, this process's and its main thread's CPU, and a quantile of sorted figures.
import fs from 'node:fs/promises';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

const CLOCK_TICKS = 100; // USER_HZ: /proc's CPU times are in 1/100 s on Linux

/**
 * CPU seconds used so far by a process (user + system), from /proc. A process that cannot be read
 * (ended, or not on this machine) is an error: a figure of 0 would pass for a measurement.
 */
export async function cpuOf(pid: number): Promise<number> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch((err: Error) => {
    throw new Error(`the CPU of process ${pid} cannot be read (${err.message}): has it ended?`);
  });
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const seconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  if (!Number.isFinite(seconds)) throw new Error(`/proc/${pid}/stat has no CPU times: ${stat.slice(0, 200)}`);
  return seconds;
}

/** The Postgres server's write-ahead log position in bytes: what it wrote, every table and index with its overhead. */
export async function walBytes(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ at: string }>`select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as at`.execute(
    db,
  );
  return Number(rows[0]!.at);
}

/** CPU seconds of every `postgres` process on this machine (the database server, when DATABASE_URL is local). */
export async function postgresCpu(): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const comm = await fs.readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    // A backend that ended since the listing is passed over (what it used is gone with it).
    if (comm.trim() === 'postgres') total += await cpuOf(Number(entry)).catch(() => 0);
  }
  return total;
}

/** CPU seconds used so far by this process (every thread), and by the thread calling it (its event loop). */
export const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
export const threadCpu = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1e6;
};

export const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;

/** The middle of the figures (the upper one of the two middles of an even count). */
export const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
