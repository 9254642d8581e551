// A shard's reports in the database (PGlite, migrated, its own for this file): each snapshot's seconds
// stored once beside a snapshot that does not grow, a failed write's seconds kept for the next one, the
// stop and a later attempt told in the same round trip, and the snapshots stored before the seconds
// had their own table moved there by the migration, nothing lost (and back when it is undone).
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../../db/connect.ts';
import { readShardSeconds, readShardSnapshots, shardWriter, writeShardSnapshot } from '../../../db/load-test-shards.ts';
import { createLoadTest, requestLoadTestStop } from '../../../db/load-tests.ts';
import { migrationProvider } from '../../../db/migrations/index.ts';
import { upsertUser } from '../../../db/users.ts';
import { mergeSeconds, PerSecondCounts } from '../../../domain/load/per-second.ts';
import type { ShardSnapshot } from '../../../domain/load/shard.ts';
import type { LoadTestConfig } from '../../../lib/jobs/load-test.ts';
import { shardSnapshot } from '../../support/snapshots.ts';
import { tempDir } from '../../support/processes.ts';

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

const config = { target_url: 'http://127.0.0.1:9/', thresholds: [] } as unknown as LoadTestConfig;
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

describe('shard reports', () => {
  it('stores each snapshot’s seconds once, beside a snapshot that keeps its size', async () => {
    const testId = await newTest();
    const writer = shardWriter(database.db, testId, 0, 1);
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
    // No growth with the test's length (a few digits more as the totals count up; the series would add ~15 bytes a second).
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
    const testId = `t${Math.random().toString(36).slice(2, 12)}`;
    // Its test is not stored yet: the first write fails (the reports' table refers to it).
    const writer = shardWriter(database.db, testId, 0, 1);
    const next = shard();
    await expect(writer.write(next(0, 5), false)).rejects.toThrow();
    await newTest(testId);
    await writer.write(next(1, 7), false);
    expect(await sentIn(testId)).toEqual([5, 7]);
    // A write that stored its report and then failed to answer: the same report again counts once.
    const again = next(2, 3);
    const report = [{ seq: 99, seconds: again.newSeconds! }];
    await writeShardSnapshot(database.db, testId, 0, 1, again, false, report);
    await writeShardSnapshot(database.db, testId, 0, 1, again, true, report);
    expect(await sentIn(testId)).toEqual([5, 7, 3]);
  });

  it('tells a stop and a later attempt in the same round trip', async () => {
    const testId = await newTest();
    const next = shard();
    await shardWriter(database.db, testId, 0, 2).write(next(0, 1), false);
    expect(await shardWriter(database.db, testId, 0, 1).write(next(1, 1), false)).toEqual({
      stop: true,
      superseded: true,
    });
    expect(await requestLoadTestStop(database.db, testId)).toBe(true);
    expect(await shardWriter(database.db, testId, 1, 1).write(next(2, 1), false)).toEqual({
      stop: true,
      superseded: false,
    });
  });

  it('keeps the phases stored when a snapshot comes without them, and takes the next ones', async () => {
    const testId = await newTest();
    const writer = shardWriter(database.db, testId, 0, 1);
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
    // A shard whose first snapshots come without phases stores none (no null in their place).
    const bare = await newTest();
    await shardWriter(database.db, bare, 0, 1).write(next(3, 1), false);
    await shardWriter(database.db, bare, 0, 1).write(next(4, 1), false);
    expect((await readShardSnapshots(database.db, bare))[0]!.snapshot).not.toHaveProperty('phases');
  });

  it('reads the phases of rows stored before their column, and puts them back in the snapshot when undone', async () => {
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
    await shardWriter(database.db, after, 0, 1).write({ ...next(1, 1), phases } as ShardSnapshot, true);
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
  });

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
