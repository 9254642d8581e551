// Load tests as rows: the record that outlives Temporal's retention, its stop flag (the shards read it
// with each report: load-test-shards.ts), its outputs' states and a replay's sequence.
import type { ShardSnapshot } from '../../lib/load/snapshot.ts';
import {
  MAX_WORKER_WAIT_SECONDS,
  type FinalResults,
  type LoadTestConfig,
  type ReplayRequest,
  type ShardSnapshotRow,
} from '../../lib/jobs/load-test.ts';
import type { LoadOutputState } from '../../lib/jobs/load-outputs.ts';
import { PHASES } from '../../lib/load/phases.ts';
import { MAX_TEST_SECONDS } from '../../lib/plans.ts';
import { sql, type Kysely, type Selectable } from 'kysely';
import { readJsonColumn, readNullableJsonColumn } from '../json-columns.ts';
import {
  loadOutputStatesColumn,
  loadTestConfigColumn,
  loadTestResultsColumn,
  replayRequestsColumn,
} from './load-test-columns.ts';
import { liveShards, type StoredShard } from './kept-snapshots.ts';
import { sameServer, type TargetServer } from '../../lib/net/same-server.ts';
import type { Database, LoadTestStatus, LoadTestsTable } from '../schema.ts';

export interface LoadTestRow {
  id: string;
  userId: number;
  status: LoadTestStatus;
  config: LoadTestConfig;
  stopRequested: boolean;
  failureReason: string | null;
  results: FinalResults | null;
  /** Each metrics output's state, by its place in config.outputs (null: it sends nothing, or has not yet). */
  outputs: Array<LoadOutputState | null> | null;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

/**
 * How long a pending or running row counts against its user's tests at once: the longest wait for a
 * worker and the longest test.
 */
const OPEN_ROW_SECONDS = MAX_WORKER_WAIT_SECONDS + MAX_TEST_SECONDS;

function toRow(r: Selectable<LoadTestsTable>): LoadTestRow {
  return {
    id: r.id,
    userId: Number(r.user_id),
    status: r.status,
    config: readJsonColumn('load_tests.config', loadTestConfigColumn, r.config),
    stopRequested: r.stop_requested,
    failureReason: r.failure_reason,
    results: readNullableJsonColumn('load_tests.results', loadTestResultsColumn, r.results),
    outputs: readNullableJsonColumn('load_tests.outputs', loadOutputStatesColumn, r.outputs),
    createdAt: new Date(r.created_at),
    startedAt: r.started_at ? new Date(r.started_at) : null,
    completedAt: r.completed_at ? new Date(r.completed_at) : null,
  };
}

/**
 * Thrown (its transaction rolled back) by a start that must run alone on its server (`alone`) while
 * another test of its user on that server is open.
 */
export class SharedTargetError extends Error {
  constructor() {
    super('another test of the same server is pending or running');
  }
}

/** The user's tests that count as open: pending or running, and not older than any could be. */
const openRows = (db: Kysely<Database>, userId: number) =>
  db
    .selectFrom('load_tests')
    .where('user_id', '=', userId)
    .where('status', 'in', ['pending', 'running'])
    // A row left open by a process that died counts no longer than the longest test could wait and run.
    .where('created_at', '>', sql<Date>`now() - make_interval(secs => ${OPEN_ROW_SECONDS})`);

/** The servers of the user's open tests: each target's origin and the addresses kept at its start. */
export async function openTargets(db: Kysely<Database>, userId: number): Promise<TargetServer[]> {
  const rows = await openRows(db, userId).select(['config', 'target_addresses']).execute();
  return rows.map((r) => {
    const { target_url } = readJsonColumn('load_tests.config', loadTestConfigColumn, r.config);
    return {
      origin: URL.canParse(target_url) ? new URL(target_url).origin : target_url,
      addresses: r.target_addresses,
    };
  });
}

/**
 * Stores a new pending test, unless its user has `maxOpen` pending or running already (false then).
 * The user's row is locked while counting, so concurrent starts cannot pass the limit together, nor
 * two that must each run `alone` (SharedTargetError) on the same server: `addresses` are its target's.
 */
export async function createLoadTest(
  db: Kysely<Database>,
  row: {
    id: string;
    userId: number;
    config: LoadTestConfig;
    replay?: readonly ReplayRequest[];
    addresses?: readonly string[];
    alone?: boolean;
  },
  maxOpen = Number.MAX_SAFE_INTEGER,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('users').select('id').where('id', '=', row.userId).forUpdate().execute();
    const { open } = await openRows(trx, row.userId)
      .select((eb) => eb.fn.countAll<string>().as('open'))
      .executeTakeFirstOrThrow();
    if (Number(open) >= maxOpen) return false;
    if (row.alone) {
      const target = { origin: new URL(row.config.target_url).origin, addresses: row.addresses ?? null };
      if ((await openTargets(trx, row.userId)).some((other) => sameServer(target, other)))
        throw new SharedTargetError();
    }
    await trx
      .insertInto('load_tests')
      .values({
        id: row.id,
        user_id: row.userId,
        status: 'pending',
        config: JSON.stringify(row.config),
        ...(row.addresses ? { target_addresses: row.addresses } : {}),
      })
      .execute();
    if (row.replay)
      await trx
        .insertInto('load_test_replays')
        .values({ test_id: row.id, requests: JSON.stringify(row.replay) })
        .execute();
    return true;
  });
}

/** The test when `userId` owns it; null for unknown and foreign ids alike. */
export async function findOwnedLoadTest(db: Kysely<Database>, id: string, userId: number): Promise<LoadTestRow | null> {
  const r = await db
    .selectFrom('load_tests')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return r ? toRow(r) : null;
}

/**
 * Whether a test's thresholds name a phase's metric (`ttfb.p95 < 200`: domain/load/metrics/thresholds.ts,
 * isPhaseMetric), from its stored config: only then does a live read carry its shards' phases, half
 * of a row that a status poll does not merge otherwise. A name that only looks like one reads them too.
 */
const NAMES_A_PHASE = `(${PHASES.join('|')})\\.`;

/**
 * The user's test (null when it is not theirs) and, while it runs, every shard attempt's snapshot as
 * readShardSnapshots gives them (null otherwise; their phases only when its thresholds name one), in
 * one statement: a status poll waits behind the shards' writes once, not once for the row and again
 * for the snapshots. The snapshots of rows still as the test's last live read found them are not sent
 * again (kept-snapshots.ts, liveShards).
 */
export async function findOwnedLoadTestLive(
  db: Kysely<Database>,
  id: string,
  userId: number,
): Promise<{ row: LoadTestRow; shards: Array<ShardSnapshotRow<ShardSnapshot>> | null } | null> {
  const live = liveShards(id);
  const found = await db
    .selectFrom('load_tests')
    .selectAll()
    .select(
      sql<StoredShard[] | null>`case when load_tests.status = 'running' then (
        select coalesce(jsonb_agg(jsonb_build_object('shard', s.shard, 'attempt', s.attempt,
          'version', s.xmin::text, 'phased', p.phased, 'known', k.known,
          'snapshot', case when not k.known then s.snapshot end,
          'phases', case when p.phased and not k.known then s.phases end,
          'final', s.final, 'sent', c.sent, 'counted_at', c.counted_at) order by s.shard, s.attempt), '[]'::jsonb)
        from load_test_shards s left join load_test_sent c
          on c.test_id = s.test_id and c.shard = s.shard and c.attempt = s.attempt
        cross join lateral (select coalesce((load_tests.config->'thresholds')::text ~ ${NAMES_A_PHASE}, false)
          as phased) p
        cross join lateral (select ((${live.versions}::jsonb ->> (s.shard::text || '/' || s.attempt::text))
          = (s.xmin::text || ':' || p.phased::text)) is true as known) k
        where s.test_id = load_tests.id) end`.as('shards'),
    )
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!found) return null;
  const { shards, ...test } = found;
  return { row: toRow(test), shards: shards ? live.rows(shards) : null };
}

/** The caller's tests, newest first. */
export async function listLoadTests(db: Kysely<Database>, userId: number, limit: number): Promise<LoadTestRow[]> {
  const rows = await db
    .selectFrom('load_tests')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toRow);
}

export async function markLoadTestRunning(db: Kysely<Database>, id: string, startedAt: Date): Promise<void> {
  await db
    .updateTable('load_tests')
    .set({ status: 'running', started_at: startedAt })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Asks the shards to stop (the test's workflow does, activities/load/index.ts); true when the test was running. */
export async function requestLoadTestStop(db: Kysely<Database>, id: string): Promise<boolean> {
  const r = await db
    .updateTable('load_tests')
    .set({ stop_requested: true })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

/** Whether a stop was asked for (by its owner or by a failing threshold); true for a test that is gone. */
export async function loadTestStopRequested(db: Kysely<Database>, id: string): Promise<boolean> {
  const row = await db.selectFrom('load_tests').select('stop_requested').where('id', '=', id).executeTakeFirst();
  return row?.stop_requested ?? true;
}

/**
 * Stores a test's end (at `options.completedAt`, else now); with `onlyIfStatus`, only over a row still in that
 * status (never over an end already stored, nor over a pending row a load worker has taken meanwhile).
 * False when nothing was stored: the row, its replay sequence with it, is left as another writer made it.
 */
export async function finishLoadTestRow(
  db: Kysely<Database>,
  id: string,
  status: LoadTestStatus,
  results: FinalResults | null,
  reason: string | null,
  options: { onlyIfStatus?: LoadTestStatus; completedAt?: Date } = {},
): Promise<boolean> {
  // The end and the sequence's removal together: a writer that stops between them leaves neither half.
  return db.transaction().execute(async (trx) => {
    let q = trx
      .updateTable('load_tests')
      .set({
        status,
        results: results === null ? null : JSON.stringify(results),
        failure_reason: reason,
        completed_at: options.completedAt ?? new Date(),
      })
      .where('id', '=', id);
    if (options.onlyIfStatus) q = q.where('status', '=', options.onlyIfStatus);
    const { numUpdatedRows } = await q.executeTakeFirst();
    if (Number(numUpdatedRows) === 0) return false;
    // A replay's sequence is no longer needed once the test has ended (its results say what it sent).
    await trx.deleteFrom('load_test_replays').where('test_id', '=', id).execute();
    return true;
  });
}

/** The test's outputs' states as stored (null: none yet). */
export async function readLoadOutputs(db: Kysely<Database>, id: string): Promise<Array<LoadOutputState | null> | null> {
  const row = await db.selectFrom('load_tests').select('outputs').where('id', '=', id).executeTakeFirst();
  return readNullableJsonColumn('load_tests.outputs', loadOutputStatesColumn, row?.outputs ?? null);
}

/** Stores the test's outputs' states (their sender's, the only writer). */
export async function recordLoadOutputs(
  db: Kysely<Database>,
  id: string,
  states: ReadonlyArray<LoadOutputState | null>,
): Promise<void> {
  await db
    .updateTable('load_tests')
    .set({ outputs: JSON.stringify(states) })
    .where('id', '=', id)
    .execute();
}

/** A replaying test's sequence (stored with the test), or null when it has none (or has ended). */
export async function readReplayRequests(db: Kysely<Database>, testId: string): Promise<ReplayRequest[] | null> {
  const row = await db
    .selectFrom('load_test_replays')
    .select('requests')
    .where('test_id', '=', testId)
    .executeTakeFirst();
  return row ? readJsonColumn('load_test_replays.requests', replayRequestsColumn, row.requests) : null;
}
