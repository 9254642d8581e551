import Router from '@koa/router';
import { z } from 'zod';
import type { ShardSnapshot } from '../../activities/load/generator.ts';
import { liveMetrics, type FinalResults } from '../../activities/load/metrics.ts';
import { createLoadTest, findOwnedLoadTest, finishLoadTestRow, listLoadTests, readShardSnapshots, requestLoadTestStop, type LoadTestRow } from '../../db/load-tests.ts';
import { AppError, NotFoundError } from '../../lib/errors.ts';
import { checkTarget } from '../../lib/net/guarded-fetch.ts';
import { newJobId, startJob, workflowIdOf } from '../../lib/temporal/jobs.ts';
import { getLoadTestState, LOAD_TEST_KIND, stopLoadTest, type LoadTestInput, type LoadTestState } from '../../workflows/load-test.ts';
import { TASK_QUEUES } from '../../workflows/task-queues.ts';
import type { ApiDeps } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import { validate } from '../validate.ts';
import { startSse, type SseTick } from '../sse.ts';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);
/** Headers the client sets itself (per connection or per body): a user cannot override them. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer']);
/** How long the stop answer waits for the shards' final totals before answering with the live ones. */
const STOP_WAIT_MS = 15_000;

/** A header value: no line breaks or NUL (they would let a value write its own header lines). */
const headerValue = z.string({ error: 'must be a string' }).refine((v) => !/[\r\n\0]/.test(v), 'must not contain line breaks');

const int = (min: number, max: number) =>
  z.number({ error: 'must be a whole number' }).int('must be a whole number').min(min, `must be from ${min} to ${max}`).max(max, `must be from ${min} to ${max}`);

export const startBody = z
  .object({
    targetUrl: z.string({ error: 'must be a string' }).min(1, 'is required'),
    httpMethod: z
      .string({ error: 'must be a string' })
      .transform((m) => m.toUpperCase())
      .pipe(z.enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` })),
    concurrentUsers: int(1, 10_000),
    testDuration: int(10, 3600),
    rampUpTime: int(0, 3600).default(10),
    requestsPerSecond: int(0, 1_000_000).default(0),
    authType: z.enum(['none', 'basic', 'bearer', 'apikey'], { error: 'must be one of none, basic, bearer, apikey' }).default('none'),
    authUsername: headerValue.optional(),
    authPassword: headerValue.optional(),
    authToken: headerValue.optional(),
    apiKeyHeader: z
      .string({ error: 'must be a string' })
      .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be a header name')
      .refine((h) => !RESERVED_HEADERS.has(h.toLowerCase()), 'must not be a header the client sets itself')
      .default('X-API-Key'),
    apiKeyValue: headerValue.optional(),
    headers: z
      .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be header names'), z.string({ error: 'must be strings' }).refine((v) => !/[\r\n\0]/.test(v), 'must not contain line breaks'))
      .refine((h) => Object.keys(h).length <= 50, 'must hold at most 50 headers')
      .refine((h) => !Object.keys(h).some((k) => RESERVED_HEADERS.has(k.toLowerCase())), `must not set ${[...RESERVED_HEADERS].join(', ')}: the client sets them`)
      .default({}),
    body: z.string({ error: 'must be a string' }).optional(),
    insecureTls: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .superRefine((b, ctx) => {
    if (b.rampUpTime > b.testDuration) ctx.addIssue({ code: 'custom', path: ['rampUpTime'], message: 'must not exceed testDuration' });
    if (b.body !== undefined && !WITH_BODY.has(b.httpMethod)) ctx.addIssue({ code: 'custom', path: ['body'], message: 'is sent only with POST, PUT and PATCH' });
    const need = { basic: ['authUsername', 'authPassword'], bearer: ['authToken'], apikey: ['apiKeyValue'], none: [] }[b.authType] as Array<keyof typeof b>;
    for (const field of need) {
      if (!b[field]) ctx.addIssue({ code: 'custom', path: [field], message: `is required when authType is ${b.authType}` });
    }
  });

export type StartBody = z.output<typeof startBody>;

/** The request every user sends: method, URL, headers with the credentials, body. */
function targetOf(b: StartBody): LoadTestInput['target'] {
  const headers: Record<string, string> = { 'user-agent': 'netops-load/0.1', ...b.headers };
  if (b.authType === 'basic') headers.authorization = `Basic ${Buffer.from(`${b.authUsername}:${b.authPassword}`).toString('base64')}`;
  if (b.authType === 'bearer') headers.authorization = `Bearer ${b.authToken}`;
  if (b.authType === 'apikey') headers[b.apiKeyHeader.toLowerCase()] = b.apiKeyValue!;
  if (b.body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  return { url: b.targetUrl, method: b.httpMethod, headers, body: b.body, ...(b.insecureTls ? { insecureTls: true } : {}) };
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
  };
}

export const listQuery = z.object({ limit: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be from 1 to 100').max(100, 'must be from 1 to 100').default(20) });

const iso = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);

/** Load tests for the REST routes and the dashboard: start, status (also as a stream), stop, results, history. */
export function loadTestService({ config, db, temporal }: Pick<ApiDeps, 'config' | 'db' | 'temporal'>) {
  async function owned(testId: string, userId: number): Promise<LoadTestRow> {
    const row = /^[A-Za-z0-9_-]{1,64}$/.test(testId) ? await findOwnedLoadTest(db, testId, userId) : null;
    if (!row) throw new NotFoundError(`No load test ${testId} among yours`);
    return row;
  }

  /** The workflow's state while it runs; the stored row once it has ended (it outlives Temporal's retention). */
  async function stateOf(row: LoadTestRow): Promise<LoadTestState> {
    if (row.status === 'pending' || row.status === 'running') {
      const handle = temporal.workflow.getHandle(workflowIdOf(LOAD_TEST_KIND, row.id));
      let state: LoadTestState;
      try {
        state = await handle.query(getLoadTestState);
      } catch (err) {
        throw new AppError(503, `The test's state could not be read (no workflows worker answered): ${(err as Error).message}`);
      }
      // The workflow closed without a worker to store its end (no load worker ever took it): store it now.
      if (state.status !== 'pending' && state.status !== 'running' && (await handle.describe()).status.name !== 'RUNNING') {
        await finishLoadTestRow(db, row.id, state.status, state.results as unknown as Record<string, unknown> | null, state.failureReason, { onlyIfOpen: true });
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

  async function start(body: StartBody, userId: number) {
    await checkTarget(body.targetUrl, { allow: config.networkAllow, field: 'targetUrl' });
    const testId = newJobId();
    const cfg = publicConfig(body);
    await createLoadTest(db, { id: testId, userId, config: cfg });
    const input: LoadTestInput = {
      testId,
      target: targetOf(body),
      concurrentUsers: body.concurrentUsers,
      testDurationSeconds: body.testDuration,
      rampUpSeconds: body.rampUpTime,
      requestsPerSecond: body.requestsPerSecond,
    };
    try {
      await startJob(temporal, { kind: LOAD_TEST_KIND, publicId: testId, ownerId: userId, workflowType: 'loadTest', taskQueue: TASK_QUEUES.workflows, args: [input] });
    } catch (err) {
      await finishLoadTestRow(db, testId, 'failed', null, `the workflow could not be started: ${(err as Error).message}`);
      throw err;
    }
    return { success: true, test_id: testId, status: 'pending', message: 'Load test queued: it starts when a load worker takes it; poll its status', config: cfg };
  }

  /** The status answer: live totals from the shards while running, the stored results once ended. */
  async function status(row: LoadTestRow) {
    const state = await stateOf(row);
    const now = Date.now();
    const metrics = state.results
      ? pick(state.results, ['total_requests', 'successful_requests', 'failed_requests', 'avg_response_time', 'throughput', 'error_rate'])
      : liveMetrics(await readShardSnapshots<ShardSnapshot>(db, row.id), now);
    const span = state.startAt !== null && state.endAt !== null ? state.endAt - state.startAt : 0;
    const until = state.completedAt ?? now;
    const progress = state.status === 'completed' ? 100 : span > 0 && state.startAt !== null ? Math.max(0, Math.min(100, Math.floor(((until - state.startAt) / span) * 100))) : 0;
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
      return { events: changed ? [{ event: 'status', data: body }] : [], done: !['pending', 'running'].includes(body.status) };
    };
  }

  async function stop(row: LoadTestRow) {
    if (!(await requestLoadTestStop(db, row.id))) throw new AppError(409, `Load test ${row.id} is ${row.status}, not running: only a running test can be stopped`);
    const handle = temporal.workflow.getHandle(workflowIdOf(LOAD_TEST_KIND, row.id));
    await handle.signal(stopLoadTest);
    // The shards see the stop within a second; their final totals cover everything sent until then.
    const final = await Promise.race([handle.result() as Promise<LoadTestState>, new Promise<null>((r) => setTimeout(() => r(null), STOP_WAIT_MS).unref())]);
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
    if (row.status === 'pending' || row.status === 'running') throw new AppError(409, `Load test ${row.id} is ${row.status}: its results are ready when it ends (poll its status)`);
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
        tests: rows.map((r) => ({ test_id: r.id, status: r.status, config: r.config, created_at: r.createdAt.toISOString(), started_at: iso(r.startedAt?.getTime()), completed_at: iso(r.completedAt?.getTime()), summary: r.results ? pick(r.results, ['total_requests', 'error_rate', 'throughput', 'p95_response_time']) : null })),
      },
    };
  }

  return { owned, start, status, statusStream, stop, results, list };
}

/** Load tests: workflows on the workflows pool whose shards run on the load pool. */
export function loadTestingRoutes(deps: ApiDeps): Router<AuthState> {
  const router = new Router<AuthState>({ prefix: '/load-testing' });
  const tests = loadTestService(deps);

  router.post('/start', async (ctx) => {
    const answer = await tests.start(validate(startBody, ctx.request.body, 'body'), ctx.state.account.userId);
    ctx.status = 202;
    ctx.body = answer;
  });
  router.get('/status/:test_id', async (ctx) => {
    ctx.body = await tests.status(await tests.owned(ctx.params.test_id!, ctx.state.account.userId));
  });
  // The same answer as a Server-Sent Events stream: an event each time it changes, ending with the test.
  router.get('/status/:test_id/events', async (ctx) => {
    const row = await tests.owned(ctx.params.test_id!, ctx.state.account.userId);
    startSse(ctx, tests.statusStream(row.id, ctx.state.account.userId));
  });
  router.post('/stop/:test_id', async (ctx) => {
    ctx.body = await tests.stop(await tests.owned(ctx.params.test_id!, ctx.state.account.userId));
  });
  router.get('/results/:test_id', async (ctx) => {
    ctx.body = await tests.results(ctx.params.test_id!, ctx.state.account.userId);
  });
  router.get('/tests', async (ctx) => {
    const { limit } = validate(listQuery, ctx.query, 'query');
    ctx.body = await tests.list(ctx.state.account.userId, limit);
  });

  return router;
}

function pick<T extends object>(from: T, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, (from as Record<string, unknown>)[k]]));
}

