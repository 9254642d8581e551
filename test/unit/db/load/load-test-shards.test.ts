// A shard's reports in the database (PGlite, migrated, its own for this file): each snapshot's seconds
// stored once beside a snapshot that does not grow, a failed write's seconds kept for the next one, the
// stop and a later attempt told in the same round trip, and the snapshots stored before the seconds
// had their own table moved there by the migration, nothing lost (and back when it is undone).
import type { ShardSnapshot } from '../../../../lib/load/snapshot.ts';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../../../db/connect.ts';
import {
  readShardSeconds,
  readShardSnapshots,
  shardReports,
  shardSentCounts,
  writeShardReports,
} from '../../../../db/load/load-test-shards.ts';
import { toShardRow } from '../../../../db/load/kept-snapshots.ts';
import {
  createLoadTest,
  findOwnedLoadTest,
  findOwnedLoadTestLive,
  finishLoadTestRow,
  readReplayRequests,
  requestLoadTestStop,
} from '../../../../db/load/load-tests.ts';
import { DependencyUnavailableError } from '../../../../lib/errors.ts';
import { migrationProvider } from '../../../../db/migrations/index.ts';
import { upsertUser } from '../../../../db/users.ts';
import { mergeSeconds, PerSecondCounts } from '../../../../domain/load/metrics/per-second.ts';
import { shardSnapshot } from '../../../support/snapshots.ts';
import { loadTestConfig } from '../../../support/load-config.ts';
import { tempDir } from '../../../support/processes.ts';
import { watchStatements } from '../../../support/statements.ts';

/** The migrations before the seconds' table (018) and before the phases' column (019). */
const BEFORE_SECONDS = '2026-11-27-017-load-test-outputs';
const BEFORE_PHASES = '2026-11-27-018-load-test-seconds';

let database: DatabaseHandle;
let userId: number;

beforeAll(async () => {
  database = await openDatabase({ databaseUrl: undefined, dataDir: await tempDir('load-tests-db') });
  userId = (await upsertUser(database.db, 'load-tests-db@example.test', 'free')).id;
});
afterAll(async () => {
  await database?.close();
});

const config = loadTestConfig('http://127.0.0.1:9/');
const newTest = async (id = `t${Math.random().toString(36).slice(2, 12)}`) => {
  expect(await createLoadTest(database.db, { id, userId, config })).toBe(true);
  await database.db.updateTable('load_tests').set({ status: 'running' }).where('id', '=', id).execute();
  return id;
};

/** A shard's next snapshot after `n` more requests sent and answered in `second`. */
function shard() {
  const counts = new PerSecondCounts();
  let total = 0;
  return (second: number, n: number): ShardSnapshot => {
    for (let i = 0; i < n; i++) {
      counts.countSent(second);
      counts.countAnswer(second, 1000 + i, false, 200);
    }
    total += n;
    return { ...shardSnapshot([]), total, sending: counts.sent(), newSeconds: counts.drain() };
  };
}

const sentIn = async (testId: string, from?: number) =>
  mergeSeconds(await readShardSeconds(database.db, testId, from)).map((s) => s.sent);

/** The database with its statements counted; the next `failing` of them fail with `error` (an outage by default). */
function watched() {
  const state = {
    statements: 0,
    failing: 0,
    error: (): unknown => new DependencyUnavailableError('database', new Error('connection refused')),
  };
  const db = watchStatements(database.db, (node) => {
    if (node.kind === 'RawNode' || node.kind === 'SelectQueryNode') {
      state.statements += 1;
      if (state.failing > 0) {
        state.failing -= 1;
        throw state.error();
      }
    }
  });
  return { db, state };
}

/** The database with what each live read's statement hands back kept, before the rows are made of it. */
function watchedShards() {
  const sent: Array<Array<{ shard: number; known: boolean; snapshot: unknown }>> = [];
  const db = database.db.withPlugin({
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      const shards = (args.result.rows[0] as { shards?: (typeof sent)[number] } | undefined)?.shards;
      if (shards) sent.push(shards);
      return args.result;
    },
  });
  return { db, sent };
}

describe('shard reports', () => {
  it('stores each snapshot’s seconds once, beside a snapshot that keeps its size', async () => {
    const testId = await newTest();
    const writer = shardReports(database.db).writer(testId, 0, 1);
    const next = shard();
    const sizes: number[] = [];
    for (let second = 0; second < 30; second++) {
      expect(await writer.write(next(second, 10), false)).toEqual({ stop: false, superseded: false });
      const { rows } = await sql<{ bytes: number }>`
        select octet_length(snapshot::text) as bytes from load_test_shards where test_id = ${testId}`.execute(
        database.db,
      );
      sizes.push(Number(rows[0]!.bytes));
    }
    expect(await sentIn(testId)).toEqual(new Array(30).fill(10));
    // No growth with the test's length (a few digits more as the totals count up; the series would add
    // ~15 bytes a second).
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(16);
    // A live series reads only the reports that reach its next second.
    expect((await readShardSeconds(database.db, testId, 25)).length).toBe(5);
    expect((await readShardSnapshots(database.db, testId))[0]!.snapshot).toMatchObject({
      total: 300,
      sending: { first: 0, last: 29, pace: 10 },
    });
    expect((await readShardSnapshots(database.db, testId))[0]!.snapshot).not.toHaveProperty('newSeconds');
  });

  it('keeps a failed write’s seconds for the next one, and counts a report stored twice once', async () => {
    const testId = await newTest();
    const { db, state } = watched();
    const writer = shardReports(db).writer(testId, 0, 1);
    const next = shard();
    state.failing = 1;
    await expect(writer.write(next(0, 5), false)).rejects.toThrow(DependencyUnavailableError);
    await writer.write(next(1, 7), false);
    expect(await sentIn(testId)).toEqual([5, 7]);
    // A write that stored its report and then failed to answer: the same report again counts once.
    const again = next(2, 3);
    const report = [{ seq: 99, seconds: again.newSeconds! }];
    const twice = { testId, shard: 0, attempt: 1, snapshot: again, seconds: report };
    await writeShardReports(database.db, [{ ...twice, final: false }]);
    await writeShardReports(database.db, [{ ...twice, final: true }]);
    expect(await sentIn(testId)).toEqual([5, 7, 3]);
  });

  it('tells a stop and a later attempt in the same round trip', async () => {
    const testId = await newTest();
    const next = shard();
    await shardReports(database.db).writer(testId, 0, 2).write(next(0, 1), false);
    expect(await shardReports(database.db).writer(testId, 0, 1).write(next(1, 1), false)).toEqual({
      stop: true,
      superseded: true,
    });
    expect(await requestLoadTestStop(database.db, testId)).toBe(true);
    expect(await shardReports(database.db).writer(testId, 1, 1).write(next(2, 1), false)).toEqual({
      stop: true,
      superseded: false,
    });
  });

  it('writes the reports that come together in one statement, each shard told its own', async () => {
    const [one, stopped] = [await newTest(), await newTest()];
    expect(await requestLoadTestStop(database.db, stopped)).toBe(true);
    const { db, state } = watched();
    const reports = shardReports(db);
    const next = shard();
    const told = await Promise.all([
      reports.writer(one, 0, 1).write(next(0, 1), false),
      reports.writer(one, 1, 1).write(next(0, 2), false),
      reports.writer(stopped, 0, 1).write(next(0, 3), false),
      // A test no longer stored (deleted meanwhile): told to stop, nothing of it written.
      reports.writer('no-such-test', 0, 1).write(next(0, 4), false),
      // Two attempts of one shard: the earlier one is told of the later in the same statement.
      reports.writer(one, 3, 1).write(next(0, 5), false),
      reports.writer(one, 3, 2).write(next(0, 6), false),
    ]);
    expect(told).toEqual([
      { stop: false, superseded: false },
      { stop: false, superseded: false },
      { stop: true, superseded: false },
      { stop: true, superseded: false },
      { stop: true, superseded: true },
      { stop: false, superseded: false },
    ]);
    expect(state.statements).toBe(1);
    expect((await readShardSnapshots(database.db, one)).map((r) => [r.shard, r.attempt, r.snapshot.total])).toEqual([
      [0, 1, 1],
      [1, 1, 3],
      [3, 1, 15],
      [3, 2, 21],
    ]);
    expect(await sentIn(stopped)).toEqual([3]);
    expect(await readShardSnapshots(database.db, 'no-such-test')).toEqual([]);
  });

  it(
    'fails only the report that cannot be written, ' + 'every report in an outage, and keeps to its most values',
    async () => {
      const testId = await newTest();
      const { db, state } = watched();
      const reports = shardReports(db, { maxParameters: 60 });
      const next = shard();
      // A report that cannot be written: the statement fails, and each report is tried alone.
      const bad = { ...next(0, 1), total: 10n as unknown as number };
      const [fine, failed] = await Promise.allSettled([
        reports.writer(testId, 0, 1).write(next(0, 2), false),
        reports.writer(testId, 1, 1).write(bad, false),
      ]);
      expect(fine).toEqual({ status: 'fulfilled', value: { stop: false, superseded: false } });
      expect(failed.status).toBe('rejected');
      expect(state.statements).toBe(1); // the good one alone (the others failed before being sent)
      // An outage: every report of the statement fails with it, none tried alone. Twice: each of the
      // three shards then brings 3 seconds' reports, 25 values each, two shards at most a statement.
      const writers = [2, 3, 4].map((s) => reports.writer(testId, s, 1));
      for (const second of [0, 1]) {
        state.statements = 0;
        state.failing = 1;
        const out = await Promise.allSettled(writers.map((w) => w.write(next(second, 1), false)));
        expect(out.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
        expect(state.statements).toBe(1);
      }
      state.statements = 0;
      await Promise.all(writers.map((w) => w.write(next(2, 1), false)));
      expect(state.statements).toBe(2);
      expect(await sentIn(testId)).toEqual([2 + 3, 3, 3]);
    },
  );

  it(
    'keeps each attempt’s newest count of what it sent, ' + 'read with its snapshot, in one statement for all',
    async () => {
      const testId = await newTest();
      const next = shard();
      await shardReports(database.db).writer(testId, 0, 1).write(next(0, 3), false);
      await shardReports(database.db).writer(testId, 0, 2).write(next(1, 1), false);
      const { db, state } = watched();
      const counts = shardSentCounts(db);
      await Promise.all([
        counts.write({ testId, shard: 0, attempt: 1, sent: 7, countedAt: 1000 }),
        counts.write({ testId, shard: 0, attempt: 2, sent: 2, countedAt: 1100 }),
        // A test no longer stored: nothing written, nothing failed.
        counts.write({ testId: 'gone', shard: 0, attempt: 1, sent: 9, countedAt: 1100 }),
      ]);
      expect(state.statements).toBe(1);
      // A write that finishes after a newer one leaves the newer count.
      await counts.write({ testId, shard: 0, attempt: 1, sent: 12, countedAt: 1300 });
      await counts.write({ testId, shard: 0, attempt: 1, sent: 10, countedAt: 1200 });
      const rows = await readShardSnapshots(database.db, testId);
      expect(rows.map((r) => [r.attempt, r.sent])).toEqual([
        [1, { sent: 12, countedAt: 1300 }],
        [2, { sent: 2, countedAt: 1100 }],
      ]);
      expect((await findOwnedLoadTestLive(database.db, testId, userId))?.shards).toEqual(
        await readShardSnapshots(database.db, testId, { phases: false }),
      );
    },
  );

  it('hands out a row’s checked snapshot again until the row is written again', async () => {
    const testId = await newTest();
    const next = shard();
    const reports = shardReports(database.db);
    const writers = [reports.writer(testId, 0, 1), reports.writer(testId, 1, 1)];
    await writers[0]!.write(next(0, 2), false);
    await writers[1]!.write(next(0, 3), false);
    const first = await readShardSnapshots(database.db, testId);
    const again = await findOwnedLoadTestLive(database.db, testId, userId);
    expect(again?.shards?.map((r) => r.snapshot)).toEqual(first.map((r) => r.snapshot));
    // The same objects: neither row was checked again; frozen, so that no reader changes them for the others.
    expect(again?.shards?.every((r, i) => r.snapshot === first[i]?.snapshot)).toBe(true);
    expect(Object.isFrozen(first[0]?.snapshot.statusCodes)).toBe(true);
    await writers[1]!.write(next(1, 4), false);
    const after = await readShardSnapshots(database.db, testId);
    expect(after[0]?.snapshot).toBe(first[0]?.snapshot);
    expect(after[1]?.snapshot).not.toBe(first[1]?.snapshot);
    expect(after.map((r) => r.snapshot.total)).toEqual([2, 9]); // next() counts on: 2, 2 + 3, 5 + 4
    // A row changed by anything else is read anew too, and a row that no longer holds its shape fails.
    await sql`update load_test_shards set snapshot = snapshot - 'total'
      where test_id = ${testId} and shard = 0`.execute(database.db);
    await expect(readShardSnapshots(database.db, testId)).rejects.toThrow(/load_test_shards\.snapshot/);
  });

  it('sends a status poll only the snapshots that changed since its test’s last live read', async () => {
    const testId = await newTest();
    const next = [shard(), shard(), shard()];
    const writers = [0, 1, 2].map((i) => shardReports(database.db).writer(testId, i, 1));
    for (const [i, w] of writers.entries()) await w.write(next[i]!(0, i + 2), false);
    const { db, sent } = watchedShards();
    const left = () => sent.at(-1)?.map((r) => [r.shard, r.known, r.snapshot === null]);
    const first = await findOwnedLoadTestLive(db, testId, userId);
    expect(left()).toEqual([
      [0, false, false],
      [1, false, false],
      [2, false, false],
    ]);
    await writers[1]!.write(next[1]!(1, 5), false);
    const second = await findOwnedLoadTestLive(db, testId, userId);
    // Shards 0 and 2 are as the first read found them: left out, and the same objects handed out.
    expect(left()).toEqual([
      [0, true, true],
      [1, false, false],
      [2, true, true],
    ]);
    expect(second?.shards).toEqual(await readShardSnapshots(database.db, testId, { phases: false }));
    expect(second?.shards?.map((r) => r.snapshot.total)).toEqual([2, 8, 4]);
    expect(second?.shards?.[0]?.snapshot).toBe(first?.shards?.[0]?.snapshot);
    // The kept snapshots pushed out by others' rows: what the last read was handed still serves.
    const other = shardSnapshot([]);
    for (let i = 0; i < 1100; i++)
      toShardRow(`other-${i}`, { shard: 0, attempt: 1, version: '1', snapshot: other, phases: null, final: false });
    const third = await findOwnedLoadTestLive(db, testId, userId);
    expect(left()?.map(([, known]) => known)).toEqual([true, true, true]);
    expect(third?.shards).toEqual(second?.shards);
    expect(sent).toHaveLength(3); // one statement a read
  });

  it('reads whole a test past 64 shard attempts, and one of more than 32 tests polled in turn', async () => {
    const { db, sent } = watchedShards();
    const known = () => sent.at(-1)?.map((r) => r.known);
    const write = (testId: string, n: number) =>
      shardReports(database.db).writer(testId, n, 1).write(shard()(0, 1), false);
    // 64 rows: left out on the next poll; a 65th: the test is read whole from then on.
    const big = await newTest();
    for (let i = 0; i < 64; i++) await write(big, i);
    await findOwnedLoadTestLive(db, big, userId);
    await findOwnedLoadTestLive(db, big, userId);
    expect(known()?.every(Boolean)).toBe(true);
    await write(big, 64);
    await findOwnedLoadTestLive(db, big, userId);
    expect(known()?.filter(Boolean)).toHaveLength(64); // named by the read before it
    const whole = await findOwnedLoadTestLive(db, big, userId);
    expect(known()?.some(Boolean)).toBe(false);
    expect(whole?.shards).toHaveLength(65);
    // 33 tests read in turn: the first one's last read is no longer kept, and it is read whole, rightly.
    const tests = [];
    for (let i = 0; i < 33; i++) {
      tests.push(await newTest());
      await write(tests[i]!, 0);
      await findOwnedLoadTestLive(db, tests[i]!, userId);
    }
    const reads = sent.length;
    const again = await findOwnedLoadTestLive(db, tests[0]!, userId);
    expect(sent.length).toBe(reads + 1);
    expect(known()).toEqual([false]);
    expect(again?.shards).toEqual(await readShardSnapshots(database.db, tests[0]!, { phases: false }));
    await findOwnedLoadTestLive(db, tests[32]!, userId);
    expect(known()).toEqual([true]);
  });

  it('reads a test’s rows again, once, when its thresholds come to name a phase, and with no thresholds', async () => {
    const testId = await newTest();
    const phases = Object.fromEntries(['dns', 'connect', 'tls', 'ttfb', 'transfer'].map((p) => [p, `h-${p}`]));
    await shardReports(database.db)
      .writer(testId, 0, 1)
      .write({ ...shard()(0, 2), phases } as ShardSnapshot, false);
    const { db, sent } = watchedShards();
    const setConfig = (c: object) =>
      database.db
        .updateTable('load_tests')
        .set({ config: JSON.stringify(c) })
        .where('id', '=', testId)
        .execute();
    const read = async () => (await findOwnedLoadTestLive(db, testId, userId))?.shards?.[0]?.snapshot;
    expect((await read())?.phases).toBeUndefined();
    expect((await read())?.phases).toBeUndefined();
    await setConfig({ ...config, thresholds: ['ttfb.p95 < 200'] });
    const phased = await read();
    expect(phased?.phases).toEqual(phases);
    expect(await read()).toBe(phased);
    // A config stored before thresholds existed: read without phases, and left out as any other.
    const { thresholds: _none, ...bare } = config;
    await setConfig(bare);
    const unphased = await read();
    expect(unphased?.phases).toBeUndefined();
    expect(await read()).toBe(unphased);
    // One statement a read; the row left out whenever it was read the same way as the read before.
    expect(sent.map((read) => read[0]?.known)).toEqual([false, true, false, true, false, true]);
  });

  it('reads a running test with its snapshots in one statement, its owner’s only', async () => {
    const testId = await newTest();
    const next = shard();
    const reports = shardReports(database.db);
    const phases = Object.fromEntries(['dns', 'connect', 'tls', 'ttfb', 'transfer'].map((p) => [p, `h-${p}`]));
    await reports.writer(testId, 1, 1).write({ ...next(0, 2), phases } as ShardSnapshot, false);
    await reports.writer(testId, 0, 1).write(next(0, 3), false);
    const { db, state } = watched();
    const live = await findOwnedLoadTestLive(db, testId, userId);
    expect(state.statements).toBe(1);
    expect(live?.row).toEqual(await findOwnedLoadTest(database.db, testId, userId));
    // Without the phases: no threshold of this test names one (half a row that a poll would not merge).
    expect(live?.shards).toEqual(await readShardSnapshots(database.db, testId, { phases: false }));
    expect(live?.shards?.map((r) => [r.shard, r.snapshot.total, r.snapshot.phases])).toEqual([
      [0, 5, undefined],
      [1, 2, undefined],
    ]);
    // A test whose thresholds name a phase's metric reads them too.
    await database.db
      .updateTable('load_tests')
      .set({
        config: JSON.stringify({
          ...config,
          thresholds: ['p95 < 300', { threshold: 'ttfb.p95 < 200', abortOnFail: true, delayAbortEval: 0 }],
        }),
      })
      .where('id', '=', testId)
      .execute();
    const phased = await findOwnedLoadTestLive(database.db, testId, userId);
    expect(phased?.shards).toEqual(await readShardSnapshots(database.db, testId));
    expect(phased?.shards?.map((r) => r.snapshot.phases)).toEqual([undefined, phases]);
    expect(await findOwnedLoadTestLive(database.db, testId, userId + 1000)).toBeNull();
    // Ended: the row only (its results hold the totals).
    await finishLoadTestRow(database.db, testId, 'completed', null, null);
    expect((await findOwnedLoadTestLive(database.db, testId, userId))?.shards).toBeNull();
    // Running with no snapshot yet: none, not null.
    expect((await findOwnedLoadTestLive(database.db, await newTest(), userId))?.shards).toEqual([]);
  });

  it('stores an end only over the status it was read in, at the time given', async () => {
    // Read pending, then a load worker took it: an end found for the pending row is not stored over it.
    const taken = await newTest();
    await finishLoadTestRow(database.db, taken, 'failed', null, 'before a load worker took it', {
      onlyIfStatus: 'pending',
    });
    expect(await findOwnedLoadTest(database.db, taken, userId)).toMatchObject({ status: 'running', completedAt: null });
    const closedAt = new Date('2026-11-30T12:00:00.000Z');
    await finishLoadTestRow(database.db, taken, 'failed', null, 'while the test ran', {
      onlyIfStatus: 'running',
      completedAt: closedAt,
    });
    expect(await findOwnedLoadTest(database.db, taken, userId)).toMatchObject({
      status: 'failed',
      failureReason: 'while the test ran',
      completedAt: closedAt,
    });
    // Never over an end already stored.
    expect(await finishLoadTestRow(database.db, taken, 'completed', null, null, { onlyIfStatus: 'running' })).toBe(
      false,
    );
    expect((await findOwnedLoadTest(database.db, taken, userId))?.status).toBe('failed');
  });

  it("leaves a replay's sequence to the writer that took the row, and drops it with the end it stores", async () => {
    const id = `t${Math.random().toString(36).slice(2, 12)}`;
    const replay = [{ at: 0, method: 'POST', path: '/hooks', headers: { 'content-type': 'text/plain' }, body: 'aGk=' }];
    expect(await createLoadTest(database.db, { id, userId, config, replay })).toBe(true);
    await database.db.updateTable('load_tests').set({ status: 'running' }).where('id', '=', id).execute();
    // Read pending, taken by a load worker since: the worker replays the sequence.
    expect(await finishLoadTestRow(database.db, id, 'failed', null, 'gone', { onlyIfStatus: 'pending' })).toBe(false);
    expect(await readReplayRequests(database.db, id)).toEqual(replay);
    expect(await finishLoadTestRow(database.db, id, 'completed', null, null, { onlyIfStatus: 'running' })).toBe(true);
    expect(await readReplayRequests(database.db, id)).toBeNull();
  });

  it(
    'keeps the phases stored when a snapshot comes without them, ' +
      'takes the next ones, and reads them only when asked',
    async () => {
      const testId = await newTest();
      const writer = shardReports(database.db).writer(testId, 0, 1);
      const next = shard();
      const phases = (tag: string) =>
        Object.fromEntries(['dns', 'connect', 'tls', 'ttfb', 'transfer'].map((p) => [p, `${tag}-${p}`])) as NonNullable<
          ShardSnapshot['phases']
        >;
      const stored = async () => (await readShardSnapshots(database.db, testId))[0]!.snapshot;
      await writer.write({ ...next(0, 1), phases: phases('first') }, false);
      await writer.write(next(1, 2), false); // without: the first ones stay, beside the new totals
      expect(await stored()).toMatchObject({ total: 3, phases: phases('first') });
      await writer.write({ ...next(2, 1), phases: phases('second') }, true);
      expect(await stored()).toMatchObject({ total: 4, phases: phases('second') });
      // A reader that merges no phase leaves them in the database.
      const [light] = await readShardSnapshots(database.db, testId, { phases: false });
      expect(light!.snapshot).toMatchObject({ total: 4 });
      expect(light!.snapshot).not.toHaveProperty('phases');
      // A shard whose first snapshots come without phases stores none (no null in their place).
      const bare = await newTest();
      await shardReports(database.db).writer(bare, 0, 1).write(next(3, 1), false);
      await shardReports(database.db).writer(bare, 0, 1).write(next(4, 1), false);
      expect((await readShardSnapshots(database.db, bare))[0]!.snapshot).not.toHaveProperty('phases');
    },
  );

  it(
    'reads the phases of rows stored before their column, ' + 'and puts them back in the snapshot when undone',
    async () => {
      const migrator = new Migrator({ db: database.db, provider: migrationProvider });
      const next = shard();
      const phases = Object.fromEntries(['dns', 'connect', 'tls', 'ttfb', 'transfer'].map((p) => [p, `h-${p}`]));
      const [before, after] = [await newTest(), await newTest()];
      expect((await migrator.migrateTo(BEFORE_PHASES)).error).toBeUndefined();
      await database.db
        .insertInto('load_test_shards')
        .values({
          test_id: before,
          shard: 0,
          attempt: 1,
          snapshot: JSON.stringify({ ...next(0, 1), phases }),
          final: true,
        })
        .execute();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expect((await readShardSnapshots(database.db, before))[0]!.snapshot).toMatchObject({ phases });
      await shardReports(database.db)
        .writer(after, 0, 1)
        .write({ ...next(1, 1), phases } as ShardSnapshot, true);
      const stored = await database.db
        .selectFrom('load_test_shards')
        .select(['snapshot', 'phases'])
        .where('test_id', '=', after)
        .executeTakeFirstOrThrow();
      expect(stored.phases).toEqual(phases); // in its own column, not in the snapshot
      expect(stored.snapshot).not.toHaveProperty('phases');
      expect((await migrator.migrateTo(BEFORE_PHASES)).error).toBeUndefined();
      const back = await database.db
        .selectFrom('load_test_shards')
        .select(sql<{ phases: unknown }>`snapshot`.as('s'))
        .where('test_id', '=', after)
        .executeTakeFirstOrThrow();
      expect(back.s.phases).toEqual(phases);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
    },
  );

  it('moves the series of snapshots stored before into the reports, nothing lost', async () => {
    const migrator = new Migrator({ db: database.db, provider: migrationProvider });
    const testId = await newTest();
    expect((await migrator.migrateTo(BEFORE_SECONDS)).error).toBeUndefined();
    // A snapshot as the shards stored them before: the whole series in it, holes stored as null.
    const legacy = {
      ...shardSnapshot([3, 5]),
      perSecond: [4, null, 9, 2],
      seconds: {
        answered: [4, null, 8, 2],
        failed: [1, null, 0, 0],
        latencySumUs: [8000, null, 9000, 100],
        latencyMaxUs: [3000, null, 2000, 50],
      },
    };
    await database.db
      .insertInto('load_test_shards')
      .values({ test_id: testId, shard: 0, attempt: 1, snapshot: JSON.stringify(legacy), final: true })
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const seconds = mergeSeconds(await readShardSeconds(database.db, testId));
    expect(seconds.map((s) => [s.sent, s.answered, s.failed, s.latencySumUs, s.latencyMaxUs])).toEqual([
      [4, 4, 1, 8000, 3000],
      [0, 0, 0, 0, 0],
      [9, 8, 0, 9000, 2000],
      [2, 2, 0, 100, 50],
    ]);
    const [row] = await readShardSnapshots(database.db, testId);
    expect(row!.snapshot).toMatchObject({ total: 2, sending: { first: 0, last: 3, pace: 9 } });
    expect(row!.snapshot).not.toHaveProperty('perSecond');
    // Undone, the series is back in the snapshot.
    expect((await migrator.migrateTo(BEFORE_SECONDS)).error).toBeUndefined();
    const back = await database.db
      .selectFrom('load_test_shards')
      .select(sql<{ perSecond: number[]; seconds: { failed: number[] } }>`snapshot`.as('s'))
      .where('test_id', '=', testId)
      .executeTakeFirstOrThrow();
    expect(back.s.perSecond).toEqual([4, 0, 9, 2]);
    expect(back.s.seconds.failed).toEqual([1, 0, 0, 0]);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
});
