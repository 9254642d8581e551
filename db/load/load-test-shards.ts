// A load test's shard reports: each shard attempt's running totals, rewritten every second (live
// metrics, the stop flag's way back to the shards, and the final merge), its phases' histograms in a
// column of their own, written only by the reports that carry them (one in five), and the seconds
// each report counted, appended once and never rewritten (the series and the results' per-second
// figures), so a report's size does not grow with the test's length.
import type { SecondFigures, ShardSnapshot } from '../../lib/load/snapshot.ts';
import { sql, type Kysely } from 'kysely';
import type { ShardSnapshotRow } from '../../lib/jobs/load-test.ts';
import { DependencyUnavailableError } from '../../lib/errors.ts';
import { GroupCommit } from '../../lib/concurrency/group-commit.ts';
import { readJsonColumn } from '../json-columns.ts';
import { mapInSlices } from '../../lib/concurrency/slices.ts';
import { shardSecondsColumn } from './load-test-columns.ts';
import { toShardRow } from './kept-snapshots.ts';
import type { Database } from '../schema.ts';

export type { ShardSnapshotRow };

/** A shard report's seconds, numbered within its attempt (a report stored twice is kept once). */
export interface SecondsReport {
  seq: number;
  seconds: SecondFigures[];
}

/** A shard attempt's report: its snapshot, and the reports of seconds not stored yet. */
export interface ShardReport {
  testId: string;
  shard: number;
  attempt: number;
  snapshot: ShardSnapshot;
  final: boolean;
  seconds: readonly SecondsReport[];
}

/** What a shard attempt is told when its report is stored. */
export interface ShardTold {
  stop: boolean;
  superseded: boolean;
}

/**
 * Stores shard attempts' snapshots with the reports of seconds not stored yet (appended, never
 * rewritten), and tells each whether it should stop: its test's stop was asked for, its test is no
 * longer stored (nothing of it is written then), or a later attempt of the same shard exists
 * (`superseded`: Temporal retried it while this one still ran, after heartbeats that did not arrive
 * in time), so a shard never sends twice for long. One statement, one round trip for all of them
 * (every shard reports every second); at most one report per attempt.
 */
export async function writeShardReports(db: Kysely<Database>, reports: readonly ShardReport[]): Promise<ShardTold[]> {
  const rows = reports.map((r, i) => {
    const { newSeconds: _handedOut, phases, ...totals } = r.snapshot;
    return sql`(${i}::integer, ${r.testId}::text, ${r.shard}::integer, ${r.attempt}::integer,
      ${JSON.stringify(totals)}::jsonb, ${phases ? JSON.stringify(phases) : null}::jsonb, ${r.final}::boolean)`;
  });
  const appended = reports.flatMap((r) =>
    r.seconds
      .filter((s) => s.seconds.length)
      .map(
        (s) =>
          sql`(${r.testId}::text, ${r.shard}::integer, ${r.attempt}::integer, ${s.seq}::integer,
            ${Math.max(...s.seconds.map((f) => f.second))}::integer, ${JSON.stringify(s.seconds)}::text)`,
      ),
  );
  const append = appended.length
    ? sql`, appended as (
        insert into load_test_seconds (test_id, shard, attempt, seq, last_second, seconds)
        select * from (values ${sql.join(appended)}) as v (test_id, shard, attempt, seq, last_second, seconds)
        where exists (select 1 from load_tests t where t.id = v.test_id)
        on conflict do nothing
      )`
    : sql``;
  // A statement sees the tables as they were before it: a later attempt in the same statement is
  // looked for in its input.
  const { rows: told } = await sql<{ superseded: boolean; stop: boolean | null }>`
    with input (i, test_id, shard, attempt, snapshot, phases, final) as (values ${sql.join(rows)}),
    stored as (
      insert into load_test_shards (test_id, shard, attempt, snapshot, phases, final)
      select test_id, shard, attempt, snapshot, phases, final from input
      where exists (select 1 from load_tests t where t.id = input.test_id)
      on conflict (test_id, shard, attempt)
      -- A snapshot without the phases (domain/load/shard.ts: PHASES_EVERY) leaves the stored ones as they are.
      do update set snapshot = excluded.snapshot, phases = coalesce(excluded.phases, load_test_shards.phases),
        final = excluded.final, updated_at = now()
    )${append}
    select
      exists (select 1 from load_test_shards s
          where s.test_id = input.test_id and s.shard = input.shard and s.attempt > input.attempt)
        or exists (select 1 from input later
          where later.test_id = input.test_id and later.shard = input.shard and later.attempt > input.attempt)
        as superseded,
      (select stop_requested from load_tests where id = input.test_id) as stop
    from input order by i
  `.execute(db);
  // No test row (deleted meanwhile): stop.
  return told.map(({ superseded, stop }) => ({ superseded, stop: superseded || (stop ?? true) }));
}

/**
 * The shards' reports of one worker process, written together: the reports that come within
 * `waitMs` of each other, or while `maxConcurrent` writes are under way, share one statement
 * (lib/concurrency/group-commit.ts), so a worker running hundreds of shards makes a few writes a second, not one
 * per shard. A statement takes at most `maxReports` reports and `maxParameters` bound values (a shard
 * whose writes failed for a while brings every second it has not stored yet; Postgres takes at most
 * 65,535). A write that fails is tried again in halves, down to a report at a time (unless the
 * database is out), so a report that cannot be written fails only its own shard.
 */
export function shardReports(
  db: Kysely<Database>,
  { maxReports = 100, maxParameters = 30_000, maxConcurrent = 2, waitMs = 50 } = {},
) {
  const writes = new GroupCommit<ShardReport, ShardTold>((reports) => writeShardReports(db, reports), {
    maxItems: maxReports,
    maxConcurrent,
    weight: (r) => 7 + 6 * r.seconds.length, // writeShardReports's values: 7 a report, 6 a second's report
    maxWeight: maxParameters,
    waitMs,
    alone: (err) => !(err instanceof DependencyUnavailableError), // an outage would fail each one again
  });
  return {
    /**
     * A shard attempt's writer: each snapshot's seconds become a numbered report, kept until a write
     * took it, so a write that fails leaves them for the next one, and one stored twice (by a write
     * that failed after it) counts once. Its writes must not overlap: its caller awaits each.
     */
    writer(testId: string, shard: number, attempt: number) {
      const unstored: SecondsReport[] = [];
      let next = 0;
      return {
        async write(snapshot: ShardSnapshot, final: boolean): Promise<ShardTold> {
          if (snapshot.newSeconds?.length) unstored.push({ seq: next++, seconds: snapshot.newSeconds });
          const seconds = [...unstored];
          const told = await writes.submit({ testId, shard, attempt, snapshot, final, seconds });
          unstored.splice(0, seconds.length);
          return told;
        },
      };
    },
  };
}

/** What a shard attempt had sent when it counted (load_test_sent). */
export interface SentCount {
  testId: string;
  shard: number;
  attempt: number;
  sent: number;
  /** Epoch ms. */
  countedAt: number;
}

/**
 * Stores shard attempts' counts of what they sent: one statement for those that come together, a
 * count never replaced by a smaller one (two writes of an attempt may finish out of order), none kept
 * for a test no longer stored.
 */
export async function writeSentCounts(db: Kysely<Database>, counts: readonly SentCount[]): Promise<undefined[]> {
  // One parameter, the counts as JSON: a load worker writes ten of these a second (on the API's thread in
  // the embedded mode), and a parameter a value had Kysely build five nodes a row (docs/benchmarks.md:
  // what the API's thread keeps past a scavenge).
  const rows = JSON.stringify(
    counts.map((c) => ({
      test_id: c.testId,
      shard: c.shard,
      attempt: c.attempt,
      sent: c.sent,
      counted_at: c.countedAt,
    })),
  );
  await sql`
    insert into load_test_sent (test_id, shard, attempt, sent, counted_at)
    select * from jsonb_to_recordset(${rows}::jsonb)
      as v (test_id text, shard integer, attempt integer, sent float8, counted_at float8)
    where exists (select 1 from load_tests t where t.id = v.test_id)
    on conflict (test_id, shard, attempt) do update set sent = excluded.sent, counted_at = excluded.counted_at
    where load_test_sent.sent <= excluded.sent
  `.execute(db);
  return counts.map(() => undefined);
}

/**
 * The counts of a worker process's shards, written together (lib/concurrency/group-commit.ts): a worker counts
 * every shard it runs on one timer, so their counts come in the same turn and share one statement,
 * written at once (a count is worth the most when it is fresh).
 */
export function shardSentCounts(db: Kysely<Database>, { maxConcurrent = 1 } = {}) {
  const writes = new GroupCommit<SentCount, undefined>((counts) => writeSentCounts(db, counts), {
    maxItems: 1000,
    maxConcurrent,
    alone: (err) => !(err instanceof DependencyUnavailableError),
  });
  return { write: (count: SentCount) => writes.submit(count) };
}

/**
 * Every shard attempt's snapshot of a test, by shard and attempt; without their phases' histograms
 * with `phases: false` (the largest part of a row: a reader that merges no phase leaves them).
 */
export async function readShardSnapshots(
  db: Kysely<Database>,
  testId: string,
  { phases = true } = {},
): Promise<Array<ShardSnapshotRow<ShardSnapshot>>> {
  const rows = await db
    .selectFrom('load_test_shards as s')
    .leftJoin('load_test_sent as c', (j) =>
      j.onRef('c.test_id', '=', 's.test_id').onRef('c.shard', '=', 's.shard').onRef('c.attempt', '=', 's.attempt'),
    )
    .select(['s.shard', 's.attempt', 's.snapshot', phases ? 's.phases' : sql<null>`null`.as('phases'), 's.final'])
    .select(sql<string>`s.xmin::text`.as('version'))
    .select(['c.sent', 'c.counted_at'])
    .where('s.test_id', '=', testId)
    .orderBy('s.shard')
    .orderBy('s.attempt')
    .execute();
  return rows.map((r) => toShardRow(testId, r));
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
  // Checked a thousand at a time (about 7 ms), the event loop free between: an hour of 20 shards is 72,000 rows.
  return mapInSlices(rows, 1000, (r) => readJsonColumn('load_test_seconds.seconds', shardSecondsColumn, r.seconds));
}
