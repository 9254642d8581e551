// Load tests for every door (REST, dashboard): start, status (also as a stream, with chart points for
// the dashboard), stop, results, history. The workflow's state while a test runs; the stored row once
// it has ended (it outlives Temporal's retention).
import type { ShardSnapshot } from '../../../lib/load/snapshot.ts';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Kysely } from 'kysely';
import { intervalTracker, liveMetrics } from '../../../domain/load/metrics/metrics.ts';
import {
  createLoadTest,
  SharedTargetError,
  findOwnedLoadTest,
  findOwnedLoadTestLive,
  finishLoadTestRow,
  listLoadTests,
  type LoadTestRow,
} from '../../../db/load/load-tests.ts';
import { readShardSnapshots } from '../../../db/load/load-test-shards.ts';
import type { Database } from '../../../db/schema.ts';
import type { Config } from '../../../lib/config.ts';
import { ConflictError, NotFoundError, PlanLimitError, RateLimitedError } from '../../../lib/errors.ts';
import { PLAN_LIMITS, type Plan } from '../../../lib/plans.ts';
import { checkTarget } from '../../../lib/net/target-guard.ts';
import { PUBLIC_ID_PATTERN } from '../../../lib/auth/tokens.ts';
import { newJobId, resultWithin, startJob, workflowIdOf } from '../../../lib/temporal/jobs.ts';
import {
  LOAD_TEST_KIND,
  stopLoadTest,
  type LoadTestInput,
  type LoadTestState,
  type ShardSnapshotRow,
} from '../../../lib/jobs/load-test.ts';
import type { StartBody } from '../../../contract/load/load-test-start.ts';
import type { SseTick } from '../../sse.ts';
import { listAnswer, pick, resultsAnswer, statusAnswer } from './load-test-answers.ts';
import { publicConfig, remoteWriteTargets, targetOf } from './load-test-input.ts';
import { loadTestStates } from './load-test-state.ts';
import type { LoadReplayService } from './load-replay.ts';
import type { TargetVerificationService } from './target-verification.ts';

/** How long the stop answer waits for the shards' final totals before answering with the live ones. */
const STOP_WAIT_MS = 15_000;

export function loadTestService({
  config,
  db,
  temporal,
  targets,
  replays,
}: {
  config: Config;
  db: Kysely<Database>;
  temporal: Client;
  targets: TargetVerificationService;
  replays: LoadReplayService;
}) {
  /** What `find` reads of the user's test; 404 when it is not theirs (or not a test id at all). */
  async function ownedBy<T>(
    testId: string,
    userId: number,
    find: (db: Kysely<Database>, id: string, userId: number) => Promise<T | null>,
  ): Promise<T> {
    const found = PUBLIC_ID_PATTERN.test(testId) ? await find(db, testId, userId) : null;
    if (!found) throw new NotFoundError(`No load test ${testId} among yours`);
    return found;
  }
  const owned = (testId: string, userId: number): Promise<LoadTestRow> => ownedBy(testId, userId, findOwnedLoadTest);

  const stateOf = loadTestStates(db, temporal);

  /** Starts a test within the account's plan: its size (403 past it) and its tests at once (429). */
  async function start(given: StartBody, account: { userId: number; plan: Plan }) {
    const { userId, plan } = account;
    const limits = PLAN_LIMITS[plan];
    if (given.concurrentUsers > limits.loadTestUsers)
      throw new PlanLimitError(`concurrentUsers: at most ${limits.loadTestUsers} on the ${plan} plan`);
    if (given.testDuration > limits.loadTestSeconds)
      throw new PlanLimitError(`testDuration: at most ${limits.loadTestSeconds} seconds on the ${plan} plan`);
    // The target as the guard checked it: the one URL the proof, the shards' requests and their steps are of.
    const { url, addresses = [] } = await checkTarget(given.targetUrl, {
      allow: config.networkAllow,
      field: given.targetField,
    });
    // Where the metrics go: checked by the guard as the target is (each write is, again, when sent).
    const outputs = remoteWriteTargets(given.outputs);
    for (const o of outputs) await checkTarget(o.url, { allow: config.networkAllow, field: `outputs.${o.index}.url` });
    // A replay's requests, and its length when the test does not give one.
    const replay = given.replay ? await replays.sequence(userId, plan, given, url) : null;
    const body = replay ? { ...given, testDuration: replay.testDuration } : given;
    let check = await targets.ensure(url, body, userId, addresses);
    const testId = newJobId();
    const cfg = publicConfig(body, replay?.config);
    const row = { id: testId, userId, config: cfg, ...(replay ? { replay: replay.requests } : {}) };
    const max = limits.loadTestsAtOnce;
    const create = () => createLoadTest(db, { ...row, addresses: check.addresses, alone: check.alone }, max);
    const created = await create().catch(async (err) => {
      if (!(err instanceof SharedTargetError)) throw err;
      // Another test of the same server was started since ensure looked: this one needs the proof now.
      check = await targets.proven(url, userId, false);
      return create();
    });
    if (!created) {
      throw new RateLimitedError(
        `At most ${limits.loadTestsAtOnce} load test${limits.loadTestsAtOnce === 1 ? '' : 's'} at once ` +
          `on the ${plan} plan: wait for one of yours to end, or stop it`,
        10,
      );
    }
    const input: LoadTestInput = {
      testId,
      target: {
        ...targetOf(body, url),
        ...(check.pinned ? { addresses: check.pinned } : {}),
        ...(check.connectTo ? { connectTo: check.connectTo } : {}),
      },
      concurrentUsers: body.concurrentUsers,
      testDurationSeconds: body.testDuration,
      rampUpSeconds: body.rampUpTime,
      requestsPerSecond: body.requestsPerSecond,
      waitForWorkerSeconds: config.loadWorkerWaitSeconds,
      ...(body.thresholds.length ? { thresholds: body.thresholds } : {}),
      ...(outputs.length ? { outputs, tags: body.tags ?? {} } : {}),
      ...(body.stages
        ? { stages: body.stages.map((st) => ({ durationMs: st.duration * 1000, target: st.target })) }
        : {}),
    };
    try {
      await startJob(temporal, {
        kind: LOAD_TEST_KIND,
        publicId: testId,
        ownerId: userId,
        workflow: 'loadTest',
        args: [input],
      });
    } catch (err) {
      await finishLoadTestRow(
        db,
        testId,
        'failed',
        null,
        `the workflow could not be started: ${(err as Error).message}`,
      );
      throw err;
    }
    return {
      success: true,
      test_id: testId,
      status: 'pending',
      message: 'Load test queued: it starts when a load worker takes it; poll its status',
      config: cfg,
    };
  }

  /**
   * The status answer: live totals from the shards while running, the stored results once ended.
   * `shards`: the running test's snapshots as read with its row (null: not read with it, read here).
   */
  async function status(row: LoadTestRow, shards: Array<ShardSnapshotRow<ShardSnapshot>> | null) {
    const state = await stateOf(row);
    // An ended test's figures are those at its end (one without results shows what its shards had stored,
    // over its window at the most, however late its end was found).
    const ended = state.status !== 'pending' && state.status !== 'running';
    const now = ended ? Math.min(state.completedAt ?? Date.now(), state.endAt ?? Date.now()) : Date.now();
    const rows = state.results ? [] : (shards ?? (await readShardSnapshots(db, row.id)));
    return statusAnswer(row, state, rows, now);
  }

  /** The user's test and its status (404 when not theirs): while it runs, its row and snapshots in one read. */
  async function live(testId: string, userId: number) {
    const found = await ownedBy(testId, userId, findOwnedLoadTestLive);
    return { row: found.row, status: await status(found.row, found.shards) };
  }

  /** The status of the user's test (404 when not theirs). */
  async function statusOf(testId: string, userId: number) {
    return (await live(testId, userId)).status;
  }

  /** A Server-Sent Events source of the status answer: an event each time it changes, ending with the test. */
  function statusStream(testId: string, userId: number): () => Promise<SseTick> {
    let last = '';
    return async () => {
      const body = await statusOf(testId, userId);
      const json = JSON.stringify(body);
      const changed = json !== last;
      last = json;
      return {
        events: changed ? [{ event: 'status', data: body }] : [],
        done: !['pending', 'running'].includes(body.status),
      };
    };
  }

  /**
   * Stops a running test: one signal to its workflow, which alone tells the shards (and ends the test).
   * A test that is not running, or whose workflow has closed meanwhile, is a conflict.
   */
  async function stop(row: LoadTestRow) {
    const notRunning = (status: string) =>
      new ConflictError(`Load test ${row.id} is ${status}, not running: only a running test can be stopped`);
    if (row.status !== 'running') throw notRunning(row.status);
    const handle = temporal.workflow.getHandle(workflowIdOf(LOAD_TEST_KIND, row.id));
    try {
      await handle.signal(stopLoadTest);
    } catch (err) {
      // Its workflow closed meanwhile: the test has ended (its row says how once read again).
      if (err instanceof WorkflowNotFoundError) throw notRunning('ended');
      throw err;
    }
    // The shards see the stop within a second; their final totals cover everything sent until then.
    const final = (await resultWithin<LoadTestState>(handle, STOP_WAIT_MS))?.value;
    const totals = final?.results ?? liveMetrics(await readShardSnapshots(db, row.id));
    return {
      success: true,
      test_id: row.id,
      status: 'stopped',
      message: final ? 'Load test stopped' : 'Load test stopping: the shards are finishing their last requests',
      partial_results: pick(totals, ['total_requests', 'successful_requests', 'failed_requests', 'avg_response_time']),
    };
  }

  async function results(testId: string, userId: number) {
    let row = await owned(testId, userId);
    if (row.status === 'pending' || row.status === 'running') {
      await stateOf(row);
      row = await owned(row.id, userId);
    }
    if (row.status === 'pending' || row.status === 'running')
      throw new ConflictError(
        `Load test ${row.id} is ${row.status}: its results are ready when it ends (poll its status)`,
      );
    return resultsAnswer(row);
  }

  async function list(userId: number, limit: number) {
    return listAnswer(await listLoadTests(db, userId, limit));
  }

  /** The status stream plus a chart point (the last interval's rate, errors and percentiles) each tick. */
  function chartStream(testId: string, userId: number): () => Promise<SseTick> {
    const statusTick = statusStream(testId, userId);
    const track = intervalTracker();
    return async () => {
      const t = await statusTick();
      const point = track(await readShardSnapshots(db, testId, { phases: false }));
      return { events: [...t.events, ...(point && !t.done ? [{ event: 'point', data: point }] : [])], done: t.done };
    };
  }

  return { owned, state: stateOf, start, live, statusOf, statusStream, chartStream, stop, results, list };
}

export type LoadTestService = ReturnType<typeof loadTestService>;
