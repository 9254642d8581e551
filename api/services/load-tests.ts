// Load tests for every door (REST, dashboard): start, status (also as a stream, with chart points for
// the dashboard), stop, results, history. The workflow's state while a test runs; the stored row once
// it has ended (it outlives Temporal's retention).
import type { Client } from '@temporalio/client';
import type { Kysely } from 'kysely';
import type { ShardSnapshot } from '../../activities/load/generator.ts';
import { intervalTracker, liveMetrics, thresholdFigures } from '../../activities/load/metrics.ts';
import { evaluateThresholds, parseThreshold, type Threshold } from '../../activities/load/thresholds.ts';
import {
  createLoadTest,
  findOwnedLoadTest,
  finishLoadTestRow,
  listLoadTests,
  readShardSnapshots,
  requestLoadTestStop,
  type LoadTestRow,
} from '../../db/load-tests.ts';
import type { Database } from '../../db/schema.ts';
import type { Config } from '../../lib/config.ts';
import { ConflictError, NotFoundError, PlanLimitError, RateLimitedError } from '../../lib/errors.ts';
import { PLAN_LIMITS, type Plan } from '../../lib/plans.ts';
import { checkTarget } from '../../lib/net/target-guard.ts';
import { PUBLIC_ID_PATTERN } from '../../lib/tokens.ts';
import { newJobId, resultWithin, startJob, temporalRead, workflowIdOf } from '../../lib/temporal/jobs.ts';
import {
  getLoadTestState,
  LOAD_TEST_KIND,
  stopLoadTest,
  type FinalResults,
  type LoadTestInput,
  type LoadTestState,
  type ScenarioStep,
  type ThresholdOutcome,
} from '../../lib/jobs/load-test.ts';
import type { StartBody } from '../schemas/load-tests.ts';
import type { StepInput } from '../schemas/load-steps.ts';
import type { SseTick } from '../sse.ts';
import type { TargetVerificationService } from './target-verification.ts';

/** How long the stop answer waits for the shards' final totals before answering with the live ones. */
const STOP_WAIT_MS = 15_000;

/** The request every user sends: method, URL, headers with the credentials, body. */
function targetOf(b: StartBody): LoadTestInput['target'] {
  const headers: Record<string, string> = { 'user-agent': 'netops-load/0.1', ...b.headers };
  if (b.authType === 'basic')
    headers.authorization = `Basic ${Buffer.from(`${b.authUsername}:${b.authPassword}`).toString('base64')}`;
  if (b.authType === 'bearer') headers.authorization = `Bearer ${b.authToken}`;
  if (b.authType === 'apikey') headers[b.apiKeyHeader.toLowerCase()] = b.apiKeyValue!;
  const withType = (h: Record<string, string>, body: string | undefined) =>
    body !== undefined && !Object.keys(h).some((k) => k.toLowerCase() === 'content-type')
      ? { ...h, 'content-type': 'application/json' }
      : h;
  return {
    url: b.targetUrl,
    method: b.httpMethod,
    headers: withType(headers, b.body),
    body: b.body,
    ...(b.insecureTls ? { insecureTls: true } : {}),
    ...(b.steps
      ? { steps: b.steps.map((st) => scenarioStep(st, b, withType({ ...headers, ...st.headers }, st.body))) }
      : {}),
  };
}

/** A step as the shards run it: its method, its path on the target's origin (placeholders kept as written), every header. */
function scenarioStep(st: StepInput, b: StartBody, headers: Record<string, string>): ScenarioStep {
  const target = new URL(b.targetUrl);
  const path =
    st.path === undefined
      ? `${target.pathname}${target.search}`
      : st.path.startsWith('/')
        ? st.path
        : st.path.slice(target.origin.length) || '/';
  return {
    ...(st.name ? { name: st.name } : {}),
    method: st.method ?? b.httpMethod,
    path,
    headers,
    ...(st.body !== undefined ? { body: st.body } : {}),
    capture: st.capture,
  };
}

/** What is shown of a test's configuration: never the credentials or header values. */
function publicConfig(b: StartBody) {
  return {
    target_url: b.targetUrl,
    concurrent_users: b.concurrentUsers,
    test_duration: b.testDuration,
    ramp_up_time: b.rampUpTime,
    requests_per_second: b.requestsPerSecond,
    http_method: b.httpMethod,
    auth_type: b.authType,
    header_names: Object.keys(b.headers),
    body_bytes: b.body === undefined ? 0 : Buffer.byteLength(b.body),
    insecure_tls: b.insecureTls,
    ...(b.stages ? { stages: b.stages, stage_target: b.stageTarget } : {}),
    ...(b.steps
      ? {
          steps: b.steps.map((st) => ({
            name: st.name ?? null,
            method: st.method ?? b.httpMethod,
            path: st.path ?? null,
            header_names: Object.keys(st.headers),
            body_bytes: st.body === undefined ? 0 : Buffer.byteLength(st.body),
            capture: st.capture,
          })),
        }
      : {}),
    thresholds: b.thresholds.map((t) =>
      t.abortOnFail ? { threshold: t.threshold, abortOnFail: true, delayAbortEval: t.delayAbortEval } : t.threshold,
    ),
  };
}

const iso = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);

export function loadTestService({
  config,
  db,
  temporal,
  targets,
}: {
  config: Config;
  db: Kysely<Database>;
  temporal: Client;
  targets: TargetVerificationService;
}) {
  async function owned(testId: string, userId: number): Promise<LoadTestRow> {
    const row = PUBLIC_ID_PATTERN.test(testId) ? await findOwnedLoadTest(db, testId, userId) : null;
    if (!row) throw new NotFoundError(`No load test ${testId} among yours`);
    return row;
  }

  /** The workflow's state while it runs; the stored row once it has ended (it outlives Temporal's retention). */
  async function stateOf(row: LoadTestRow): Promise<LoadTestState> {
    if (row.status === 'pending' || row.status === 'running') {
      const handle = temporal.workflow.getHandle(workflowIdOf(LOAD_TEST_KIND, row.id));
      const state = await temporalRead(temporal, () => handle.query(getLoadTestState), 'test');
      // The workflow closed without a worker to store its end (no load worker ever took it): store it now.
      if (
        state.status !== 'pending' &&
        state.status !== 'running' &&
        (await temporalRead(temporal, () => handle.describe(), 'test')).status.name !== 'RUNNING'
      ) {
        await finishLoadTestRow(
          db,
          row.id,
          state.status,
          state.results as unknown as Record<string, unknown> | null,
          state.failureReason,
          { onlyIfOpen: true },
        );
      }
      return state;
    }
    const durationMs = Number(row.config.test_duration) * 1000;
    return {
      status: row.status,
      startAt: row.startedAt?.getTime() ?? null,
      endAt: row.startedAt ? row.startedAt.getTime() + durationMs : null,
      completedAt: row.completedAt?.getTime() ?? null,
      stopRequested: row.stopRequested,
      failureReason: row.failureReason,
      results: row.results as LoadTestState['results'],
    };
  }

  /** Starts a test within the account's plan: its size (403 past it) and its tests at once (429). */
  async function start(body: StartBody, account: { userId: number; plan: Plan }) {
    const { userId, plan } = account;
    const limits = PLAN_LIMITS[plan];
    if (body.concurrentUsers > limits.loadTestUsers)
      throw new PlanLimitError(`concurrentUsers: at most ${limits.loadTestUsers} on the ${plan} plan`);
    if (body.testDuration > limits.loadTestSeconds)
      throw new PlanLimitError(`testDuration: at most ${limits.loadTestSeconds} seconds on the ${plan} plan`);
    await checkTarget(body.targetUrl, { allow: config.networkAllow, field: 'targetUrl' });
    const pinned = await targets.ensure(body.targetUrl, body, userId);
    const testId = newJobId();
    const cfg = publicConfig(body);
    if (!(await createLoadTest(db, { id: testId, userId, config: cfg }, limits.loadTestsAtOnce))) {
      throw new RateLimitedError(
        `At most ${limits.loadTestsAtOnce} load test${limits.loadTestsAtOnce === 1 ? '' : 's'} at once on the ${plan} plan: wait for one of yours to end, or stop it`,
        10,
      );
    }
    const input: LoadTestInput = {
      testId,
      target: { ...targetOf(body), ...(pinned ? { addresses: pinned } : {}) },
      concurrentUsers: body.concurrentUsers,
      testDurationSeconds: body.testDuration,
      rampUpSeconds: body.rampUpTime,
      requestsPerSecond: body.requestsPerSecond,
      waitForWorkerSeconds: config.loadWorkerWaitSeconds,
      ...(body.thresholds.length ? { thresholds: body.thresholds } : {}),
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

  /** The status answer: live totals from the shards while running, the stored results once ended. */
  async function status(row: LoadTestRow) {
    const state = await stateOf(row);
    const now = Date.now();
    const rows = state.results ? [] : await readShardSnapshots<ShardSnapshot>(db, row.id);
    // The merged histograms so far (for the live p95 and the thresholds); the stored results once ended.
    // No figures before the first answer: an attempt's row exists from its start, with nothing in it yet.
    const figures = state.results || !rows.some((r) => r.snapshot.total > 0) ? null : thresholdFigures(rows, now);
    const metrics = state.results
      ? pick(state.results, [
          'total_requests',
          'successful_requests',
          'failed_requests',
          'avg_response_time',
          'throughput',
          'error_rate',
          'p95_response_time',
        ])
      : { ...liveMetrics(rows, now), p95_response_time: figures?.p95 ?? 0 };
    // Live pass/fail on the merged totals so far; the verdict once ended.
    const thresholds = state.results
      ? state.results.thresholds
      : figures
        ? liveThresholds(row.config.thresholds, figures)
        : undefined;
    const span = state.startAt !== null && state.endAt !== null ? state.endAt - state.startAt : 0;
    const until = state.completedAt ?? now;
    const progress =
      state.status === 'completed'
        ? 100
        : span > 0 && state.startAt !== null
          ? Math.max(0, Math.min(100, Math.floor(((until - state.startAt) / span) * 100)))
          : 0;
    return {
      success: true,
      test_id: row.id,
      status: state.status,
      progress,
      metrics,
      started_at: iso(state.startAt),
      estimated_completion: iso(state.endAt),
      completed_at: iso(state.completedAt),
      stop_requested: state.stopRequested,
      ...(state.failureReason ? { failure_reason: state.failureReason } : {}),
      ...(thresholds?.length
        ? { thresholds, ...(state.results?.verdict ? { verdict: state.results.verdict } : {}) }
        : {}),
      config: row.config,
    };
  }

  /** A Server-Sent Events source of the status answer: an event each time it changes, ending with the test. */
  function statusStream(testId: string, userId: number): () => Promise<SseTick> {
    let last = '';
    return async () => {
      const body = await status(await owned(testId, userId));
      const json = JSON.stringify(body);
      const changed = json !== last;
      last = json;
      return {
        events: changed ? [{ event: 'status', data: body }] : [],
        done: !['pending', 'running'].includes(body.status),
      };
    };
  }

  async function stop(row: LoadTestRow) {
    if (!(await requestLoadTestStop(db, row.id)))
      throw new ConflictError(`Load test ${row.id} is ${row.status}, not running: only a running test can be stopped`);
    const handle = temporal.workflow.getHandle(workflowIdOf(LOAD_TEST_KIND, row.id));
    await handle.signal(stopLoadTest);
    // The shards see the stop within a second; their final totals cover everything sent until then.
    const final = (await resultWithin<LoadTestState>(handle, STOP_WAIT_MS))?.value;
    const totals = final?.results ?? liveMetrics(await readShardSnapshots<ShardSnapshot>(db, row.id));
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
    return {
      success: true,
      test_id: row.id,
      status: row.status,
      results: row.results as FinalResults | null,
      started_at: iso(row.startedAt?.getTime()),
      completed_at: iso(row.completedAt?.getTime()),
      ...(row.failureReason ? { failure_reason: row.failureReason } : {}),
      config: row.config,
    };
  }

  async function list(userId: number, limit: number) {
    const rows = await listLoadTests(db, userId, limit);
    return {
      success: true,
      data: {
        total: rows.length,
        tests: rows.map((r) => ({
          test_id: r.id,
          status: r.status,
          config: r.config,
          created_at: r.createdAt.toISOString(),
          started_at: iso(r.startedAt?.getTime()),
          completed_at: iso(r.completedAt?.getTime()),
          summary: r.results
            ? pick(r.results, ['total_requests', 'error_rate', 'throughput', 'p95_response_time', 'verdict'])
            : null,
        })),
      },
    };
  }

  /** The status stream plus a chart point (the last interval's rate, errors and percentiles) each tick. */
  function chartStream(testId: string, userId: number): () => Promise<SseTick> {
    const statusTick = statusStream(testId, userId);
    const track = intervalTracker();
    return async () => {
      const t = await statusTick();
      const point = track(await readShardSnapshots<ShardSnapshot>(db, testId));
      return { events: [...t.events, ...(point && !t.done ? [{ event: 'point', data: point }] : [])], done: t.done };
    };
  }

  return { owned, start, status, statusStream, chartStream, stop, results, list };
}

export type LoadTestService = ReturnType<typeof loadTestService>;

/** The thresholds of a running test (as its public config keeps them) on its shards' totals so far. */
function liveThresholds(config: unknown, figures: ReturnType<typeof thresholdFigures>): ThresholdOutcome[] | undefined {
  if (!Array.isArray(config) || config.length === 0) return undefined;
  const parsed = config.map(parseThreshold).filter((t): t is Threshold => typeof t !== 'string');
  return evaluateThresholds(parsed, figures);
}

function pick<T extends object>(from: T, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, (from as Record<string, unknown>)[k]]));
}
