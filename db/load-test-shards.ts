// A load test's shard reports: each shard attempt's running totals, rewritten every second (live
// metrics, the stop flag's way back to the shards, and the final merge), its phases' histograms in a
// column of their own, written only by the reports that carry them (one in five), and the seconds
// each report counted, appended once and never rewritten (the series and the results' per-second
// figures), so a report's size does not grow with the test's length.
import { sql, type Kysely } from 'kysely';
import type { SecondFigures } from '../domain/load/per-second.ts';
import type { ShardSnapshot } from '../domain/load/shard.ts';
import type { ShardSnapshotRow } from '../lib/jobs/load-test.ts';
import { readJsonColumn, readNullableJsonColumn } from './json-columns.ts';
import { shardPhasesColumn, shardSecondsColumn, shardSnapshotColumn } from './load-test-columns.ts';
import type { Database } from './schema.ts';

export type { ShardSnapshotRow };

/** A shard report's seconds, numbered within its attempt (a report stored twice is kept once). */
export interface SecondsReport {
  seq: number;
  seconds: SecondFigures[];
}

/**
 * Stores a shard attempt's snapshot with the reports of seconds not stored yet (appended, never
 * rewritten), and says whether the attempt should stop: the test's stop was asked for, or a later
 * attempt of the same shard exists (`superseded`: Temporal retried it while this one still ran,
 * after heartbeats that did not arrive in time), so a shard never sends twice for long. One statement,
 * one round trip: every shard makes it every second.
 */
export async function writeShardSnapshot(
  db: Kysely<Database>,
  testId: string,
  shard: number,
  attempt: number,
  snapshot: ShardSnapshot,
  final: boolean,
  reports: readonly SecondsReport[] = [],
): Promise<{ stop: boolean; superseded: boolean }> {
  const { newSeconds: _handedOut, phases, ...totals } = snapshot;
  const appended = reports.filter((r) => r.seconds.length);
  const append = appended.length
    ? sql`, appended as (
        insert into load_test_seconds (test_id, shard, attempt, seq, last_second, seconds)
        values ${sql.join(
          appended.map(
            (r) =>
              sql`(${testId}, ${shard}, ${attempt}, ${r.seq}, ${Math.max(...r.seconds.map((f) => f.second))}, ${JSON.stringify(r.seconds)})`,
          ),
        )}
        on conflict do nothing
      )`
    : sql``;
  const { rows } = await sql<{ superseded: boolean; stop: boolean | null }>`
    with stored as (
      insert into load_test_shards (test_id, shard, attempt, snapshot, phases, final)
      values (${testId}, ${shard}, ${attempt}, ${JSON.stringify(totals)}, ${phases ? JSON.stringify(phases) : null}, ${final})
      on conflict (test_id, shard, attempt)
      -- A snapshot without the phases (domain/load/shard.ts: PHASES_EVERY) leaves the stored ones as they are.
      do update set snapshot = excluded.snapshot, phases = coalesce(excluded.phases, load_test_shards.phases),
        final = excluded.final, updated_at = now()
    )${append}
    select
      exists (select 1 from load_test_shards where test_id = ${testId} and shard = ${shard} and attempt > ${attempt}) as superseded,
      (select stop_requested from load_tests where id = ${testId}) as stop
  `.execute(db);
  const { superseded, stop } = rows[0]!;
  return { superseded, stop: superseded || (stop ?? true) };
}

/**
 * A shard attempt's writer (writeShardSnapshot): each snapshot's seconds become a numbered report,
 * kept until a write took it, so a write that fails leaves them for the next one, and one stored
 * twice (by a write that failed after it) counts once. Its writes must not overlap: its caller awaits each.
 */
export function shardWriter(db: Kysely<Database>, testId: string, shard: number, attempt: number) {
  const unstored: SecondsReport[] = [];
  let next = 0;
  return {
    async write(snapshot: ShardSnapshot, final: boolean): Promise<{ stop: boolean; superseded: boolean }> {
      if (snapshot.newSeconds?.length) unstored.push({ seq: next++, seconds: snapshot.newSeconds });
      const reports = [...unstored];
      const told = await writeShardSnapshot(db, testId, shard, attempt, snapshot, final, reports);
      unstored.splice(0, reports.length);
      return told;
    },
  };
}

/** Every shard attempt's snapshot of a test, by shard and attempt. */
export async function readShardSnapshots(
  db: Kysely<Database>,
  testId: string,
): Promise<Array<ShardSnapshotRow<ShardSnapshot>>> {
  const rows = await db
    .selectFrom('load_test_shards')
    .select(['shard', 'attempt', 'snapshot', 'phases', 'final'])
    .where('test_id', '=', testId)
    .orderBy('shard')
    .orderBy('attempt')
    .execute();
  return rows.map((r) => ({
    shard: r.shard,
    attempt: r.attempt,
    snapshot: withPhases(
      readJsonColumn('load_test_shards.snapshot', shardSnapshotColumn, r.snapshot),
      readNullableJsonColumn('load_test_shards.phases', shardPhasesColumn, r.phases),
    ),
    final: r.final,
  }));
}

/**
 * The test's seconds as its shards reported them, each report's list (merge them: per-second.ts,
 * mergeSeconds); with `fromSecond`, only the reports that hold a second at or after it.
 */
export async function readShardSeconds(
  db: Kysely<Database>,
  testId: string,
  fromSecond = 0,
): Promise<SecondFigures[][]> {
  const rows = await db
    .selectFrom('load_test_seconds')
    .select('seconds')
    .where('test_id', '=', testId)
    .where('last_second', '>=', fromSecond)
    .execute();
  return rows.map((r) => readJsonColumn('load_test_seconds.seconds', shardSecondsColumn, r.seconds));
}

/** A snapshot with its phases from their column (a row stored before that column has them in the snapshot). */
const withPhases = (snapshot: ShardSnapshot, phases: NonNullable<ShardSnapshot['phases']> | null): ShardSnapshot =>
  phases ? { ...snapshot, phases } : snapshot;
