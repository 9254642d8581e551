// Activities of the load pool: a test's start, its shards (the load itself, on the pool's threads:
// threads.ts), and its end.
import type { ShardSnapshot } from '../../lib/load/snapshot.ts';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Kysely } from 'kysely';
import {
  finishLoadTestRow,
  loadTestStopRequested,
  markLoadTestRunning,
  readReplayRequests,
  requestLoadTestStop,
} from '../../db/load/load-tests.ts';
import { readShardSeconds, readShardSnapshots, shardReports, shardSentCounts } from '../../db/load/load-test-shards.ts';
import type { Database } from '../../db/schema.ts';
import { REQUEST_TIMEOUT_MS, type ShardPlan } from '../../domain/load/generator.ts';
import { ThreadedShard } from '../../domain/load/threads.ts';
import { SENT_COUNT_EVERY_MS } from '../../domain/load/restarts.ts';
import { heartbeatsOf, PHASES_EVERY, reportPhaseMs } from '../../domain/load/shard.ts';
import type { FinalResults, LoadTestStatus, LoadThreshold } from '../../lib/jobs/load-test.ts';
import { thresholdFigures } from '../../domain/load/metrics/metrics.ts';
import { ResultsThreads } from '../../domain/load/results/results-threads.ts';
import { sharedTicker } from '../../lib/concurrency/ticker.ts';
import { isPhaseMetric, type ThresholdMetric } from '../../contract/load/threshold-words.ts';
import { abortingFailure, evaluateThresholds } from '../../domain/load/metrics/thresholds.ts';

/** The activity's logger, when running as one (tests call some activities directly). */
function activityLog() {
  try {
    return Context.current().log;
  } catch {
    return null;
  }
}

/** Time the shards get to be scheduled and connect before the load starts. */
const START_DELAY_MS = 500;
/** How often a shard stores its totals (live metrics are at most this old, plus the API's read). */
const SNAPSHOT_EVERY_MS = 1000;

/** A shard as the workflow plans it; the worker adds the request timeout and its NETWORK_ALLOW. */
export type ShardInput = Omit<ShardPlan, 'requestTimeoutMs' | 'allow'> & {
  testId: string;
  shard: number;
  /** The test's shards in all (stored with each snapshot: the series waits for every one). */
  shards?: number;
  /** How often the shard heartbeats (workflows/load-test-plan.ts: shardLiveness); every second when absent. */
  heartbeatEveryMs?: number;
};

export interface ThresholdWatch {
  testId: string;
  thresholds: LoadThreshold[];
  startAt: number;
  endAt: number;
}

/**
 * A shard's tick that stores what it has sent when that changed, one write at a time: a worker that
 * dies between two reports took the requests it sent since the last with it, and the last count says
 * how many (domain/load/restarts.ts: lostBy). A count not stored is followed by the next.
 */
function countingSent(
  generator: ThreadedShard,
  store: (sent: number, countedAt: number) => Promise<unknown>,
): () => void {
  let storing = false;
  let stored = 0;
  return () => {
    if (storing) return;
    const sent = generator.sentSoFar();
    if (sent === stored) return;
    storing = true;
    store(sent, Date.now())
      .then(
        () => (stored = sent),
        () => {},
      )
      .finally(() => (storing = false));
  };
}

export interface ShardOutcome {
  total: number;
  stopped: boolean;
}

export function createLoadActivities(deps: {
  db: Kysely<Database>;
  allow: readonly string[];
  threads: number;
  /** Where an ended test's results are computed (one pool for the process's load activities). */
  results?: ResultsThreads;
}) {
  const resultsThreads = deps.results ?? new ResultsThreads();
  // Every shard of this worker reports through one writer: reports that come together share a statement.
  const shardWrites = shardReports(deps.db);
  // Their heartbeat ticks share one timer (lib/concurrency/ticker.ts): a worker with hundreds of shards wakes once a
  // second for them.
  const ticks = sharedTicker(SNAPSHOT_EVERY_MS);
  // What they sent, counted between their reports (countingSent): one timer, and one write a count for all.
  const countTicks = sharedTicker(SENT_COUNT_EVERY_MS);
  const sentCounts = shardSentCounts(deps.db);
  return {
    /** A load worker has the test: it starts now (plus a moment for the shards to be placed). */
    async beginLoadTest(testId: string): Promise<number> {
      const startAt = Date.now() + START_DELAY_MS;
      await markLoadTestRunning(deps.db, testId, new Date(startAt));
      return startAt;
    },

    /** One shard: its users until the end of the test window or a stop; totals stored every second. */
    async runLoadShard(input: ShardInput): Promise<ShardOutcome> {
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      const {
        testId: _testId,
        shard: _shard,
        shards: _shards,
        heartbeatEveryMs = SNAPSHOT_EVERY_MS,
        ...shardPlan
      } = input;
      // A replay's sequence is stored with the test, not in the history (it may be megabytes).
      const { replay } = shardPlan.target;
      const requests = replay ? await readReplayRequests(deps.db, input.testId) : null;
      if (replay && !requests)
        throw ApplicationFailure.nonRetryable(`the replay of test ${input.testId} is no longer stored`);
      // A retry takes over from a lost attempt now: the arrivals due meanwhile are the gap, not a burst.
      const plan: ShardPlan = {
        ...shardPlan,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        allow: deps.allow,
        ...(attempt > 1 ? { resume: true } : {}),
        ...(replay && requests ? { replay: { ...replay, requests } } : {}),
      };
      let stopped = false;
      let superseded = false;
      const windowSeconds = Math.ceil((input.endAt - input.startAt) / 1000);
      const writer = shardWrites.writer(input.testId, input.shard, attempt);
      const store = (snapshot: ShardSnapshot, final: boolean) =>
        writer.write({ ...snapshot, windowSeconds, ...(input.shards ? { shards: input.shards } : {}) }, final);
      const save = async (snapshot: ShardSnapshot, final: boolean) => {
        const told = await store(snapshot, final);
        superseded ||= told.superseded;
        if (told.stop) {
          stopped = true;
          generator.stop();
        }
      };
      // Each report stores the shard's totals; one that comes while the last is still being stored is
      // not (no backlog: its seconds go with the next). The first comes once the parts have started.
      // Never awaited here: a slow database must not hold back the heartbeats below.
      let storing = false;
      let ended = false;
      let reported = false;
      let reportedAt = Date.now();
      let saving: Promise<void> = Promise.resolve();
      const report = () => {
        if (storing || ended) return;
        storing = true;
        reported = true;
        reportedAt = Date.now();
        saving = Promise.resolve()
          .then(() => save(generator.latest(), false))
          .catch((err) => ctx.log.warn('shard snapshot not stored', { error: String(err) }))
          .finally(() => (storing = false));
      };
      // The test's shards report a fraction of a second apart, not all at once: a reader of the
      // database (a status poll) then waits behind a few shards' write, not behind every shard's.
      // The load threads keep that clock (threads.ts): this thread is woken once per report.
      const moment = reportPhaseMs(input.shard, input.shards, SNAPSHOT_EVERY_MS);
      const generator = ThreadedShard.start(plan, deps.threads, {
        firstAt: Date.now() + moment,
        everyMs: SNAPSHOT_EVERY_MS,
        phasesEvery: PHASES_EVERY,
        onReport: report,
      });
      const cancelled = () => generator.stop();
      ctx.cancellationSignal.addEventListener('abort', cancelled);
      ctx.heartbeat();
      const beats = heartbeatsOf(input.shard, heartbeatEveryMs, SNAPSHOT_EVERY_MS, Date.now());
      const tick = () => {
        // Alive whatever the database does: a slow or missing database delays the snapshots, never
        // makes Temporal retry a shard that is still sending (its heartbeat timeout is seconds).
        const now = Date.now();
        if (beats.due(now)) ctx.heartbeat();
        // Nothing stored for a second and a half (a load thread held up on a busy machine, or a part
        // behind the others): the totals as they are, so that the row stays fresh and a stop is still read.
        if (now - reportedAt >= 1.5 * SNAPSHOT_EVERY_MS) report();
      };
      // Every shard of this worker ticks on the same timer, once a second (their heartbeats spread
      // over the seconds by shard number when they beat less often than each second: heartbeatsOf).
      const untick = ticks.add(tick);
      // A test that fails over within seconds (a second's heartbeats) also counts what its shards sent.
      const uncount =
        heartbeatEveryMs <= SNAPSHOT_EVERY_MS
          ? countTicks.add(
              countingSent(generator, (sent, countedAt) =>
                sentCounts.write({ testId: input.testId, shard: input.shard, attempt, sent, countedAt }),
              ),
            )
          : () => {};
      const stopTicking = () => {
        ended = true;
        untick();
        uncount();
      };
      try {
        const result = await generator.run().catch(async (err) => {
          // An attempt that fails before its first report still has its row: it is seen (a failure,
          // and the gap it left counted from the window's start). No report is stored after this one.
          stopTicking();
          await saving;
          if (!reported) await store(generator.latest(), false).catch(() => {});
          throw err;
        });
        stopTicking();
        await saving;
        // A superseded attempt's end says so: the results count the restart (it sent all it counted).
        await store({ ...result, ...(superseded ? { superseded } : {}) }, true);
        return { total: result.total, stopped };
      } finally {
        stopTicking();
        generator.stop(); // after a failure too: no part keeps sending
        ctx.cancellationSignal.removeEventListener('abort', cancelled);
      }
    },

    /**
     * Asks every shard of the test to stop (each reads it with its next snapshot, within a second).
     * Only the test's workflow calls it: a stop's one way to the shards.
     */
    async stopLoadShards(testId: string): Promise<void> {
      await requestLoadTestStop(deps.db, testId);
    },

    /**
     * Every second while the test runs, the thresholds on the shards' merged totals; the first
     * aborting one that fails (past its delay) is answered, and the workflow stops the shards. Ends
     * with the test, a stop, or a cancellation.
     */
    async watchThresholds(input: ThresholdWatch): Promise<{ abortedBy: string | null }> {
      const ctx = Context.current();
      const metrics = input.thresholds.map((t) => t.metric as ThresholdMetric);
      const phases = metrics.some(isPhaseMetric); // read and merged only for a threshold that names one
      while (!ctx.cancellationSignal.aborted && Date.now() < input.endAt + SNAPSHOT_EVERY_MS) {
        await new Promise((resolve) => setTimeout(resolve, SNAPSHOT_EVERY_MS));
        ctx.heartbeat();
        if (await loadTestStopRequested(deps.db, input.testId)) break;
        const now = Date.now();
        const rows = await readShardSnapshots(deps.db, input.testId, { phases });
        // Nothing attempted yet: nothing to judge (connection errors count: error_rate reads them).
        if (!rows.some((r) => r.snapshot.total + (r.snapshot.connectionErrors ?? 0) > 0)) continue;
        const failed = abortingFailure(
          input.thresholds,
          evaluateThresholds(
            input.thresholds,
            // Only the thresholds' own metrics: a histogram is merged only for a metric that reads it.
            thresholdFigures(rows, now, metrics),
          ),
          (now - input.startAt) / 1000,
        );
        if (failed) return { abortedBy: failed };
      }
      return { abortedBy: null };
    },

    /**
     * Merges every shard attempt into the results (with the thresholds' verdict) and stores them with the final status.
     */
    async finishLoadTest(
      testId: string,
      status: LoadTestStatus,
      reason: string | null,
      thresholds: LoadThreshold[] = [],
      abortedBy: string | null = null,
    ): Promise<FinalResults> {
      const rows = await readShardSnapshots(deps.db, testId);
      const reports = await readShardSeconds(deps.db, testId);
      const { results, onEventLoop, error } = await resultsThreads.results(testId, {
        rows,
        reports,
        thresholds,
        abortedBy,
      });
      if (onEventLoop)
        activityLog()?.warn('test results computed on the event loop: the results thread could not', {
          testId,
          why: onEventLoop,
          ...(error ? { error } : {}),
        });
      // Over a running row only: an end the API stored meanwhile (its workflow terminated) stays.
      await finishLoadTestRow(deps.db, testId, status, results, reason, { onlyIfStatus: 'running' });
      return results;
    },
  };
}

export type LoadActivities = ReturnType<typeof createLoadActivities>;
