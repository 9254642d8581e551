// The load pool's activities with their real dependencies: an embedded database (PGlite, migrated, its
// own for this file), the shard threads, and a target on loopback that counts what it receives, the
// address guard allowing loopback only. A test begins, its shards send and store their totals, a stop
// asked through stopLoadShards reaches a running shard, a failing aborting threshold is answered (the
// workflow stops the shards: the watcher asks nothing itself), and the end merges what was stored.
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createLoadActivities,
  type LoadActivities,
  type ShardInput,
  type ThresholdWatch,
} from '../../../../activities/load/index.ts';
import { openDatabase, type DatabaseHandle } from '../../../../db/connect.ts';
import { readShardSnapshots } from '../../../../db/load/load-test-shards.ts';
import { createLoadTest, findOwnedLoadTest } from '../../../../db/load/load-tests.ts';
import { upsertUser } from '../../../../db/users.ts';
import { ThreadedShard } from '../../../../domain/load/threads.ts';
import { ResultsThreads } from '../../../../domain/load/results/results-threads.ts';
import { parseThreshold, type Threshold } from '../../../../contract/load/thresholds.ts';
import { startLoadTarget, type LoadTarget } from '../../../fixtures/load-target.ts';
import { tempDir } from '../../../support/processes.ts';
import { loadTestConfig } from '../../../support/load-config.ts';

let database: DatabaseHandle;
let activities: LoadActivities;
let site: LoadTarget;
let userId: number;
const results = new ResultsThreads();

beforeAll(async () => {
  database = await openDatabase({ databaseUrl: undefined, dataDir: await tempDir('load-activities') });
  site = await startLoadTarget();
  activities = createLoadActivities({ db: database.db, allow: ['127.0.0.1/32'], threads: 1, results });
  userId = (await upsertUser(database.db, 'load-activities@example.test', 'free')).id;
});
afterAll(async () => {
  await results.close();
  await site?.close();
  await database?.close();
});

/** A stored pending test of `seconds` on `path` of the target, begun by a load worker. */
async function begun(path: string, seconds: number) {
  const url = `${site.url}${path}`;
  const testId = `t${Math.random().toString(36).slice(2, 12)}`;
  expect(
    await createLoadTest(database.db, { id: testId, userId, config: loadTestConfig(url, { test_duration: seconds }) }),
  ).toBe(true);
  const startAt = await activities.beginLoadTest(testId);
  const shard: ShardInput = {
    testId,
    shard: 0,
    target: { url, method: 'GET', headers: {} },
    users: 2,
    firstUser: 0,
    totalUsers: 2,
    startAt,
    endAt: startAt + seconds * 1000,
    rampUpMs: 0,
    rate: 0,
  };
  return { testId, startAt, shard };
}

/** A shard and the threshold watcher as a load worker runs them (they read their activity context). */
const runShard = (input: ShardInput) =>
  new MockActivityEnvironment().run(activities.runLoadShard, input) as ReturnType<LoadActivities['runLoadShard']>;
const watch = (input: ThresholdWatch) =>
  new MockActivityEnvironment().run(activities.watchThresholds, input) as ReturnType<LoadActivities['watchThresholds']>;

/**
 * Keeps the load threads' reports from the shard activity, as if its threads were held up (restore the spy answered).
 */
function holdReports() {
  const start = ThreadedShard.start;
  return vi
    .spyOn(ThreadedShard, 'start')
    .mockImplementation((plan, threads, reports) => start(plan, threads, { ...reports, onReport: () => {} }));
}

const row = async (testId: string) => (await findOwnedLoadTest(database.db, testId, userId))!;

describe('load activities', () => {
  it('begins a test, runs a shard to its end storing its totals, and merges them into the stored end', async () => {
    const { testId, startAt, shard } = await begun('/ok', 3);
    expect(await row(testId)).toMatchObject({ status: 'running', startedAt: new Date(startAt) });

    const outcome = await runShard(shard);
    expect(outcome.stopped).toBe(false);
    expect(outcome.total).toBeGreaterThan(0);
    expect(outcome.total).toBe(site.count('/ok'));
    const [stored] = await readShardSnapshots(database.db, testId);
    expect(stored).toMatchObject({ shard: 0, attempt: 1, final: true, snapshot: { total: outcome.total } });

    const results = await activities.finishLoadTest(testId, 'completed', null);
    expect(results).toMatchObject({ total_requests: outcome.total, successful_requests: outcome.total });
    // Each second's figures, stored once apart from the snapshot, add up to the total.
    expect(results.requests_per_second.reduce((a, b) => a + b, 0)).toBe(outcome.total);
    expect(results.requests_per_second.length).toBeGreaterThanOrEqual(3);
    expect(await row(testId)).toMatchObject({ status: 'completed', results, failureReason: null });
  });

  it('reports at its moment of the second, the phases one report in five', async () => {
    // Shard 1 of 2 reports half a second into each of its seconds (shard 0 at their start): its first
    // report as its load thread starts it, its second at half a second, then every second, on the load
    // thread's clock. The phases' histograms come with every fifth report after the first (which has
    // timed nothing yet).
    const { shard } = await begun('/moment', 8);
    const taken: Array<{ at: number; withPhases: boolean }> = [];
    const original = ThreadedShard.prototype.latest;
    const spy = vi.spyOn(ThreadedShard.prototype, 'latest').mockImplementation(function (this: ThreadedShard) {
      const snapshot = original.call(this);
      taken.push({ at: performance.now(), withPhases: snapshot.phases !== undefined });
      return snapshot;
    });
    const began = performance.now();
    try {
      await runShard({ ...shard, shard: 1, shards: 2 });
    } finally {
      spy.mockRestore();
    }
    expect(taken.length).toBeGreaterThanOrEqual(6);
    expect(taken.map((a) => a.withPhases)).toEqual(taken.map((_, i) => i > 0 && i % 5 === 0));
    // Each report after the first comes half a second past a whole second from the shard's start
    // (without the moment, at whole seconds). Timers fire late, never early but for the loop's clock
    // (a little behind), and an interval's lateness adds up: a wide window.
    for (const a of taken.slice(1)) {
      const past = (a.at - began) % 1000;
      expect(past).toBeGreaterThanOrEqual(400);
      expect(past).toBeLessThan(900);
    }
  });

  it(
    "spreads a test's heartbeats over their interval: a shard beats at its start, then as early as its " +
      'number says',
    async () => {
      // Shard 3 of 4, beating every 5 s: its second beat 3 s early, at its first tick 1.5 s or more in
      // (the worker's shards tick together once a second); without the spread, 4.5 s or more in.
      const { shard } = await begun('/beats', 3);
      const env = new MockActivityEnvironment();
      const beats: number[] = [];
      env.on('heartbeat', () => beats.push(performance.now()));
      await env.run(activities.runLoadShard, { ...shard, shard: 3, shards: 4, heartbeatEveryMs: 5000 });
      expect(beats.length).toBeGreaterThanOrEqual(2);
      expect(beats[1]! - beats[0]!).toBeGreaterThanOrEqual(1400);
      expect(beats[1]! - beats[0]!).toBeLessThan(2900);
    },
  );

  it('stores its totals and reads a stop while its load thread reports nothing (a thread held up)', async () => {
    // The load thread's reports are kept from the activity: its own tick stores the totals as they are
    // once none came for a second and a half, so the row moves and a stop still reaches the shard.
    const { testId, shard } = await begun('/held', 60);
    const held = holdReports();
    try {
      const running = runShard(shard);
      for (let i = 0; i < 100 && site.count('/held') === 0; i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 2600));
      const [live] = await readShardSnapshots(database.db, testId);
      expect(live).toMatchObject({ shard: 0, attempt: 1, final: false });
      expect(live!.snapshot.total).toBeGreaterThan(0);
      await activities.stopLoadShards(testId);
      const outcome = await running;
      expect(outcome.stopped).toBe(true);
    } finally {
      held.mockRestore();
    }
  });

  it('leaves its row when it fails before its first report', async () => {
    // No report reached the activity when its load thread failed: the attempt is still stored (a
    // failure, the gap it left counted from the window's start).
    const { testId, shard } = await begun('/lost', 60);
    const held = holdReports();
    const lost = vi.spyOn(ThreadedShard.prototype, 'run').mockRejectedValue(new Error('the load thread exited'));
    try {
      await expect(runShard(shard)).rejects.toThrow('the load thread exited');
    } finally {
      held.mockRestore();
      lost.mockRestore();
    }
    const [stored] = await readShardSnapshots(database.db, testId);
    expect(stored).toMatchObject({ shard: 0, attempt: 1, final: false });
  });

  it('stops a running shard when the workflow asks the shards to stop', async () => {
    const { testId, shard } = await begun('/stopped', 60);
    const running = runShard(shard);
    // Once it has sent, the workflow's stop: the shard reads it with its next snapshot.
    for (let i = 0; i < 100 && site.count('/stopped') === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await activities.stopLoadShards(testId);
    expect((await row(testId)).stopRequested).toBe(true);
    const outcome = await running;
    expect(outcome.stopped).toBe(true);
    const [stored] = await readShardSnapshots(database.db, testId);
    expect(stored).toMatchObject({ final: true, snapshot: { total: outcome.total } });
    await activities.finishLoadTest(testId, 'stopped', null);
    expect((await row(testId)).status).toBe('stopped');
  });

  it('answers the failing aborting threshold and leaves the stop to the workflow', async () => {
    // A long window: the stop ends it.
    const { testId, startAt, shard } = await begun('/status/500', 60);
    const thresholds = [parseThreshold({ threshold: 'error_rate < 1', abortOnFail: true }) as Threshold];
    const sending = runShard(shard);
    const { abortedBy } = await watch({
      testId,
      thresholds,
      startAt,
      endAt: startAt + 60_000,
    });
    expect(abortedBy).toBe('error_rate < 1');
    expect((await row(testId)).stopRequested).toBe(false);
    await activities.stopLoadShards(testId);
    expect((await sending).stopped).toBe(true);
    const results = await activities.finishLoadTest(testId, 'stopped', 'stopped by a threshold', thresholds, abortedBy);
    expect(results).toMatchObject({ verdict: 'failed', aborted_by: 'error_rate < 1', error_rate: 100 });
    expect(results.status_codes).toEqual({ '500': results.total_requests });
  });

  it('judges a threshold on a phase from the phases the shards stored (read only for such a threshold)', async () => {
    // Every answer takes some time to its first byte: a ttfb.p95 under a microsecond fails once the
    // phases come (one report in five). Read without them, it would be 0 and hold.
    const { testId, startAt, shard } = await begun('/ok', 9);
    const thresholds = [parseThreshold({ threshold: 'ttfb.p95 < 0.001', abortOnFail: true }) as Threshold];
    const sending = runShard(shard);
    const { abortedBy } = await watch({ testId, thresholds, startAt, endAt: startAt + 9000 });
    expect(abortedBy).toBe('ttfb.p95 < 0.001');
    await activities.stopLoadShards(testId);
    await sending;
  });
});
