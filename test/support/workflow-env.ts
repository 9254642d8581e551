// A real Temporal server for the unit tests of workflows/: the test environment's local server run
// from the Temporal CLI the app runs (never a download), the workflow module bundled as the workflows
// pool bundles it, and stub activities on the pools' own task queues, with the pools' interceptors.
// Each workflow's test replays a history recorded from a real run (test/fixtures/histories/): to
// record them again, `RECORD_HISTORIES=1 npx vitest run test/unit/workflows/`.
//
// A test file of a workflow needs little more than:
//   const env = useWorkflowEnv({ workflows: 'workflows/site.ts', activities: { network: stubs } }); // top level
//   const handle = await env.start('siteDiscovery', [input]);
//   await env.record(handle, 'site-discovery'); // after the run
//   await env.replay('site-discovery'); // its replay test
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Client, WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root.js';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../lib/config.ts';
import type { JobWorkflows, JobWorkflowType } from '../../lib/jobs/index.ts';
import type { ActivityPool } from '../../lib/jobs/task-queues.ts';
import { FAILURE_CONVERTER_PATH } from '../../lib/temporal/codec.ts';
import { createActivityWorker } from '../../workers/pools/pool-worker.ts';
import { createMediaWorkers } from '../../workers/pools/media.ts';
import { bundleWorkflows } from '../../workers/pools/workflow-bundle.ts';
import { ROOT } from './processes.ts';

export const HISTORIES_DIR = path.join(ROOT, 'test/fixtures/histories');
export const RECORDING = process.env.RECORD_HISTORIES === '1';

// The SDK's warnings and errors, a line each: its info lines (every worker's state changes) would drown
// the tests' output, and a pool without workflows or activities polling for none is the design.
try {
  Runtime.install({
    shutdownSignals: [],
    logger: new DefaultLogger('WARN', ({ level, message, meta }) => {
      if (/^No (workflows|activities) registered/.test(message)) return;
      const { activityType, workflowType, error } = (meta ?? {}) as Record<string, unknown>;
      const about = activityType ?? workflowType;
      console.warn(`temporal ${level}: ${message}${about ? ` (${about})` : ''}${error ? `: ${error}` : ''}`);
    }),
  });
} catch {
  // another module of this process installed it first
}

/**
 * The pools' data converter without the payload codec: failures are encoded as in production (the
 * failure converter the bundle loads too), payloads stay plain JSON so the recorded histories read.
 */
export const dataConverter: DataConverter = { failureConverterPath: FAILURE_CONVERTER_PATH };

/**
 * The Temporal CLI as the app finds it (lib/config.ts: TEMPORAL_CLI, else `temporal`, which
 * scripts/setup puts first on PATH), as a path: the test server runs an existing file only.
 */
export function temporalCli(): string {
  const cli = loadConfig({ TEMPORAL_CLI: process.env.TEMPORAL_CLI }).temporal.cli;
  if (cli.includes('/')) return path.resolve(cli);
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, cli);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not in this folder
    }
  }
  throw new Error(
    `The Temporal CLI \`${cli}\` is not on PATH: run the tests through scripts/setup (npm test), or set TEMPORAL_CLI`,
  );
}

export interface WorkflowEnvOptions {
  /** The workflow module under test, from the root (`workflows/video.ts`): what the bundle holds. */
  workflows: string;
  /** The activities each pool's task queue runs here (stubs); a pool left out has no worker. */
  activities?: Partial<Record<ActivityPool, object>>;
  /** A short heartbeat throttle, say, so that a cancellation reaches a heartbeating stub at once. */
  activityWorkerOptions?: Pick<WorkerOptions, 'maxHeartbeatThrottleInterval'>;
  /** The configuration the pools' workers read (VIDEO_JOBS_PER_WORKER, say), as environment variables. */
  config?: Record<string, string>;
}

export interface WorkflowEnv {
  client: Client;
  /** The test's task queue, where the workflows run. */
  taskQueue: string;
  /** Starts a workflow by its type name, as lib/temporal/jobs.ts does, on the test's task queue. */
  start<N extends JobWorkflowType>(
    workflow: N,
    args: Parameters<JobWorkflows[N]>,
    options?: { workflowId?: string; memo?: Record<string, unknown> },
  ): Promise<WorkflowHandleWithFirstExecutionRunId<JobWorkflows[N]>>;
  /** With RECORD_HISTORIES=1, keeps the history of the ended run of `handle` as the fixture `name`. */
  record(handle: WorkflowHandle, name: string): Promise<void>;
  /**
   * Replays the recorded history `name` with this bundle: rejects (a DeterminismViolationError) when the
   * code no longer makes the commands the history holds.
   */
  replay(name: string): Promise<void>;
  /** Stops the workers and the server. */
  close(): Promise<void>;
}

/** The local server and the bundle (made at the same time), a workflow worker, and a worker per pool given. */
export async function startWorkflowEnv(options: WorkflowEnvOptions): Promise<WorkflowEnv> {
  const [env, bundle] = await Promise.all([
    TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: temporalCli() } },
      client: { dataConverter },
    }),
    bundleWorkflows({
      workflowsPath: path.join(ROOT, options.workflows),
      failureConverterPath: FAILURE_CONVERTER_PATH,
      workflowInterceptorModules: [path.join(ROOT, 'workflows/interceptors.ts')],
    }),
  ]);
  const workers: Worker[] = [];
  const running: Array<Promise<void>> = [];
  try {
    const namespace = env.namespace ?? 'default';
    const taskQueue = `test-${path.basename(options.workflows, '.ts')}`;
    workers.push(
      await Worker.create({
        connection: env.nativeConnection,
        namespace,
        taskQueue,
        workflowBundle: bundle,
        dataConverter,
      }),
    );
    const ctx = {
      connection: env.nativeConnection,
      namespace,
      dataConverter,
      config: loadConfig(options.config ?? {}),
      storage: undefined,
    };
    for (const [pool, activities] of Object.entries(options.activities ?? {}) as Array<[ActivityPool, object]>) {
      const { activityWorkerOptions: own } = options;
      if (pool === 'media') workers.push(...(await createMediaWorkers(ctx, activities, own)));
      else workers.push(await createActivityWorker(pool, ctx, activities, own));
    }
    running.push(...workers.map((w) => w.run()));
    const start: WorkflowEnv['start'] = async <N extends JobWorkflowType>(
      workflow: N,
      args: Parameters<JobWorkflows[N]>,
      o: { workflowId?: string; memo?: Record<string, unknown> } = {},
    ) => {
      const handle = await env.client.workflow.start(workflow, {
        taskQueue,
        workflowId: o.workflowId ?? `${workflow}-${randomUUID()}`,
        args: args as unknown[],
        ...(o.memo ? { memo: o.memo } : {}),
      });
      return handle as WorkflowHandleWithFirstExecutionRunId<JobWorkflows[N]>;
    };
    return {
      client: env.client,
      taskQueue,
      start,
      record: recordHistory,
      replay: (name) => replayHistory(bundle, name),
      close: () => stop(workers, running, env),
    };
  } catch (err) {
    await stop(workers, running, env);
    throw err;
  }
}

/**
 * For a test file (at its top level): the environment of `options`, started before its tests and
 * closed after them. What it returns reads the started one, so a test uses it as it is.
 */
export function useWorkflowEnv(options: WorkflowEnvOptions): WorkflowEnv {
  let env: WorkflowEnv | undefined;
  beforeAll(async () => {
    env = await startWorkflowEnv(options);
  });
  afterAll(() => env?.close());
  const started = (): WorkflowEnv => {
    if (!env)
      throw new Error(`The workflow environment of ${options.workflows} is used before its beforeAll started it`);
    return env;
  };
  return {
    get client() {
      return started().client;
    },
    get taskQueue() {
      return started().taskQueue;
    },
    start: (workflow, args, o) => started().start(workflow, args, o),
    record: recordHistory,
    replay: (name) => started().replay(name),
    close: () => started().close(),
  };
}

async function stop(workers: Worker[], running: Array<Promise<void>>, env: TestWorkflowEnvironment): Promise<void> {
  for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
  await Promise.allSettled(running);
  await env.teardown();
}

type History = proto.temporal.api.history.v1.IHistory;
interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }): History | null;
}
// Histories as proto3 JSON (the format of Temporal UI's downloads). Not @temporalio/common's historyToJSON
// and historyFromJSON: they throw "type must be a Type" in this tree, where common and proto each have a
// copy of protobufjs 8 of their own (the top one is 7, grpc's), and protojson knows the types of its own
// copy only. The protojson of proto's copy converts proto's types.
const protoJson = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'))(
  'protobufjs/ext/protojson',
) as ProtoJson;
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);
const historyFile = (name: string) => path.join(HISTORIES_DIR, `${name}.json`);

async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (!RECORDING) return;
  const history = proto.temporal.api.history.v1.History.fromObject(await handle.fetchHistory());
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  fs.writeFileSync(historyFile(name), `${JSON.stringify(protoJson.toJson(historyType, history), null, 2)}\n`);
}

async function replayHistory(bundle: { code: string }, name: string): Promise<void> {
  if (!fs.existsSync(historyFile(name)))
    throw new Error(
      `No recorded history ${historyFile(name)}: record it with RECORD_HISTORIES=1 npx vitest run <the test>`,
    );
  const json: unknown = JSON.parse(fs.readFileSync(historyFile(name), 'utf8'));
  const history = protoJson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history?.events?.length) throw new Error(`${historyFile(name)} holds no history`);
  await Worker.runReplayHistory({ workflowBundle: bundle, dataConverter, replayName: name }, history);
}

/** The activity types the run of `handle` scheduled so far, in order (from its history). */
export async function scheduledActivities(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

/**
 * Resolves with what `probe` gives once it gives something (not undefined, null or false); rejects after `timeoutMs`.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined && got !== null && got !== false) return got;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A promise a test opens when it wants: an activity stub waits on it. */
export function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}
