// npm run bench:shard-scale
// Scale on paper, from a measurement: how many load shards Temporal and the database carry. N shard
// activities (BENCH_SHARDS, 20,200,500,1000,2000) that send no traffic but do for Temporal and the database
// what a real shard does (activities/load/index.ts): a snapshot stored every second and heartbeats
// as often as the test's size says (workflows/load-test-plan.ts: shardLiveness), spread by shard number;
// the snapshots built from histograms fed at BENCH_SAMPLES answers a second and reported unasked on the shard's
// clock (the real shard's encoding work, on BENCH_BUILD_THREADS threads, one per core, as a load
// worker's load threads: shard-scale-builder.ts), for
// BENCH_SECONDS (60) each, with the load test's activity options (shard-scale-workflow.ts). Against the
// embedded Temporal server (the `temporal` CLI's dev server, started here) and PGlite in this process,
// or Postgres with DATABASE_URL (its server's CPU counted when it runs on this machine). One worker
// (this process) runs every shard, BENCH_DB_CONNECTIONS (10, as a load worker's pool) to the database,
// the reports written together as a load worker writes them (db/load/load-test-shards.ts: shardReports).
// Prints, for each N, over the seconds when every shard was reporting: the Temporal server's and the
// worker's CPU (in total, and per shard; of the worker's, its event loop's: the heartbeats and the
// reports, without building the snapshots), how long after its second each snapshot was stored (p50,
// p99, max) and how many seconds were skipped because the last one was still being stored, the
// oldest heartbeat the server held, the shards retried, the bytes a report sends (its JSON, first and
// last minute) and, on Postgres, the write-ahead log it wrote per shard-second (every table and index
// with their overhead); then the largest N on time (every snapshot stored within its second, no
// second skipped, no heartbeat older than its timeout: workflows/load-test-plan.ts).
import type { ShardSnapshot } from '../../lib/load/snapshot.ts';
import fs from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { openDatabase } from '../../db/connect.ts';
import { shardReports } from '../../db/load/load-test-shards.ts';
import { createLoadTest } from '../../db/load/load-tests.ts';
import { findOrCreateUser } from '../../db/users.ts';
import { USERS_PER_SHARD } from '../../workflows/load-test-plan.ts';
import { heartbeatsOf, PHASES_EVERY, reportPhaseMs } from '../../domain/load/shard.ts';
import { startBuilders } from './shard-scale-builders.ts';
import { startDevServer } from '../../lib/temporal/dev-server.ts';
import { sharedTicker } from '../../lib/concurrency/ticker.ts';
import { freePort, tempDir } from '../../test/support/processes.ts';
import { loadTestConfig } from '../../test/support/load-config.ts';
import type { IdleShardActivities, IdleShardInput } from './shard-scale-workflow.ts';
import { cpuOf, postgresCpu, quantile, selfCpu, threadCpu, walBytes } from './machine.ts';
import { SHARD_HEARTBEAT_EVERY, shardLiveness } from '../../workflows/load-test-plan.ts';

const COUNTS = (process.env.BENCH_SHARDS ?? '20,200,500,1000,2000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const BUILD_THREADS = Number(process.env.BENCH_BUILD_THREADS ?? os.availableParallelism());
const DB_CONNECTIONS = Number(process.env.BENCH_DB_CONNECTIONS ?? 10);
const TASK_QUEUE = 'bench-shard-scale';

/** What the shards of the current N saw. */
let run = {
  late: [] as number[],
  skipped: 0,
  /** Ticks that found no report for a second and a half (a builder thread held up). */
  stale: 0,
  retried: 0,
  failedWrites: 0,
  reporting: new Set<number>(),
  /** Bytes stored per write (a sample of them), by minute of the shard's run. */
  bytes: new Map<number, { bytes: number; writes: number }>(),
};

const dataDir = await tempDir('bench-shards');
const temporal = await startDevServer({
  cli: process.env.TEMPORAL_CLI ?? 'temporal',
  dataDir,
  port: await freePort(),
  uiPort: await freePort(),
  namespace: 'default',
});
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir, maxConnections: DB_CONNECTIONS });
const db = database.db;
const shardWrites = shardReports(db); // one for the worker, as a load worker's (activities/load/index.ts)
const ticks = sharedTicker(1000); // the shards' heartbeat ticks, on one timer as a load worker's
Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });

const pool = startBuilders(BUILD_THREADS, SAMPLES);
const { builders } = pool;

/**
 * A shard that sends nothing: its snapshots, of histograms fed as if answers came, reported every
 * second on a builder thread's clock and stored as they come; a heartbeat timer on this thread.
 */
async function idleShard(input: IdleShardInput): Promise<number> {
  const ctx = Context.current();
  const attempt = ctx.info.attempt;
  if (attempt > 1) run.retried += 1;
  const writer = shardWrites.writer(input.testId, input.shard, attempt);
  const builder = builders[input.shard % builders.length]!;
  const key = `${input.testId}/${input.shard}/${attempt}`;
  // Reports every second from this attempt's start and the shard's moment of the second, as the real
  // shard's (reportPhaseMs); one that comes while the last is still being stored is skipped, as the
  // real shard skips it.
  const moment = reportPhaseMs(input.shard, input.shards, 1000);
  let total = 0;
  let storing = false;
  let reportedAt = Date.now();
  let stored: Promise<unknown> = Promise.resolve();
  const store = (s: ShardSnapshot, due: number) => {
    if (storing) {
      run.skipped += 1;
      return;
    }
    storing = true;
    reportedAt = Date.now();
    total = s.total;
    if (input.shard % 10 === 0) {
      // A sample, every report of one shard in ten (measuring every one would add to the worker's
      // CPU; every tenth report would always be one with the phases): the totals and the seconds' report.
      const minute = Math.floor((Date.now() - input.startAt) / 60_000);
      const m = run.bytes.get(minute) ?? { bytes: 0, writes: 0 };
      run.bytes.set(minute, { bytes: m.bytes + JSON.stringify(s).length, writes: m.writes + 1 });
    }
    stored = writer
      .write(s, false)
      .then(
        () => {
          run.late.push(Date.now() - due);
          run.reporting.add(input.shard);
        },
        () => (run.failedWrites += 1),
      )
      .finally(() => (storing = false));
  };
  const reports = builder.start(
    key,
    input.startAt,
    { firstAt: Date.now() + moment, everyMs: 1000, phasesEvery: PHASES_EVERY },
    (built) => store(built.snapshot, built.due),
  );
  ctx.heartbeat({ total: 0 });
  const beats = heartbeatsOf(input.shard, input.heartbeatEveryMs, 1000, Date.now());
  const untick = ticks.add(() => {
    const now = Date.now();
    if (beats.due(now)) ctx.heartbeat({ total }); // whatever the database does, as the real shard
    if (now - reportedAt >= 1500) run.stale += 1; // the real shard would store its last totals here
  });
  let ending: ReturnType<typeof setTimeout> | undefined;
  let aborted = () => {};
  try {
    await Promise.race([
      reports.failed,
      new Promise((r) => (ending = setTimeout(r, Math.max(0, input.endAt - Date.now())))),
      new Promise<void>((r) => {
        aborted = r;
        ctx.cancellationSignal.addEventListener('abort', aborted);
      }),
    ]);
  } finally {
    untick();
    clearTimeout(ending);
    ctx.cancellationSignal.removeEventListener('abort', aborted);
  }
  const last = await reports.end();
  await stored; // the last live write first (a shard's writes never overlap)
  await writer.write(last.snapshot, true);
  return last.snapshot.total;
}

const workflowBundle = await bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('./shard-scale-workflow.ts', import.meta.url)),
  logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
});
const worker = await Worker.create({
  connection: await NativeConnection.connect({ address: temporal.address }),
  taskQueue: TASK_QUEUE,
  workflowBundle,
  activities: { idleShard } satisfies IdleShardActivities,
  maxConcurrentActivityTaskExecutions: Math.max(...COUNTS) + 10,
  maxHeartbeatThrottleInterval: SHARD_HEARTBEAT_EVERY, // as a load worker's
});
const running = worker.run();
const client = new Client({ connection: await Connection.connect({ address: temporal.address }) });
const user = await findOrCreateUser(db, 'bench-shard-scale@example.com', 'enterprise');
const pgPid = process.env.DATABASE_URL !== undefined;
const cpuOfDatabase = pgPid
  ? ' (postgres CPU: every postgres process here)'
  : " (in the worker process: its CPU is in the worker's)";

console.log(
  `\nShard scale, ${new Date().toISOString()}: shards that heartbeat and store a snapshot every second ` +
    `(${SAMPLES} answers a second each), ${SECONDS} s per N, one worker process, database ` +
    `${database.kind}${cpuOfDatabase}, ${DB_CONNECTIONS} connections`,
);
console.log(
  '  shards | all reporting after | Temporal server CPU | worker CPU | of it, its event loop (the ' +
    'heartbeats and reports; the snapshots are built on other threads) | postgres CPU | snapshot stored ' +
    'after its second p50 / p99 / max | seconds skipped | oldest heartbeat | retried | on time | bytes a ' +
    'report sends per shard-second (JSON, mean) | Postgres WAL per shard-second',
);
/** The CPU time each process has used so far, and the WAL Postgres has written, at this moment. */
const usage = async () => ({
  at: Date.now(),
  temporal: await cpuOf(temporal.pid!),
  worker: selfCpu(),
  eventLoop: threadCpu(),
  pg: pgPid ? await postgresCpu() : 0,
  wal: pgPid ? await walBytes(db) : 0,
});
let largestOnTime: number | null = null;
try {
  for (const n of COUNTS) {
    run = { late: [], skipped: 0, stale: 0, retried: 0, failedWrites: 0, reporting: new Set(), bytes: new Map() };
    const testId = `shard-scale-${n}-${Date.now()}`;
    await createLoadTest(db, {
      id: testId,
      userId: user.id,
      config: loadTestConfig('http://127.0.0.1:9/', { concurrent_users: n * USERS_PER_SHARD, test_duration: SECONDS }),
    });
    const startAt = Date.now();
    const endAt = startAt + SECONDS * 1000;
    const handle = await client.workflow.start('idleShards', {
      taskQueue: TASK_QUEUE,
      workflowId: testId,
      args: [testId, n, startAt, endAt],
    });
    while (run.reporting.size < n && Date.now() < endAt - 5000) await new Promise((r) => setTimeout(r, 50));
    const allReporting = (Date.now() - startAt) / 1000;
    run.late = []; // lateness and reports missing over the window when every shard reports
    run.stale = 0;
    const from = await usage();
    // The oldest heartbeat the server holds, looked at every 5 s (against its timeout: shardLiveness).
    let oldestHeartbeat: number | null = null;
    while (Date.now() < endAt - 6000) {
      await new Promise((r) => setTimeout(r, 5000));
      const { raw } = await handle.describe();
      const now = Date.now();
      for (const a of raw.pendingActivities ?? []) {
        const t = a.lastHeartbeatTime ?? a.lastStartedTime;
        if (t?.seconds)
          oldestHeartbeat = Math.max(
            oldestHeartbeat ?? 0,
            now - (Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)),
          );
      }
    }
    await new Promise((r) => setTimeout(r, Math.max(0, endAt - 1000 - Date.now())));
    const to = await usage();
    const failed = await handle.result();
    // Bytes stored per shard-second in the first minute and in the last one measured.
    const minutes = [...run.bytes.keys()].sort((a, b) => a - b);
    const perWrite = (minute: number | undefined) => {
      const m = minute === undefined ? undefined : run.bytes.get(minute);
      return m ? `${(m.bytes / m.writes / 1024).toFixed(2)} KB` : '-';
    };
    const lastMinute = minutes.at(-1);
    const written = `${perWrite(minutes[0])} in minute 1, ${perWrite(lastMinute)} in minute ${(lastMinute ?? 0) + 1}`;
    const span = (to.at - from.at) / 1000;
    // Per shard reporting in the window: when not every shard ever reported, the window is the run's
    // last seconds and the figure is marked (start-up work, not steady reporting).
    const reporting = run.reporting.size;
    const pct = (cpu: number) =>
      `${((cpu / span) * 100).toFixed(1)} % (${((cpu / span / Math.max(1, reporting)) * 1000).toFixed(2)} ` +
      `ms/s per reporting shard${reporting < n ? ', not steady' : ''})`;
    const late = [...run.late].sort((a, b) => a - b);
    const onTime =
      run.reporting.size === n &&
      quantile(late, 1) < 1000 &&
      run.skipped === 0 &&
      run.stale === 0 &&
      run.failedWrites === 0 &&
      oldestHeartbeat !== null &&
      oldestHeartbeat < shardLiveness(n).heartbeatTimeoutMs &&
      run.retried === 0 &&
      failed === 0;
    if (onTime) largestOnTime = n;
    const reported =
      run.reporting.size < n ? `${run.reporting.size} of ${n} ever reported` : `${allReporting.toFixed(1)} s`;
    const heartbeat =
      oldestHeartbeat === null
        ? 'not looked at (the shards were still starting)'
        : `${(oldestHeartbeat / 1000).toFixed(1)} s`;
    const writesFailed = run.failedWrites ? `, ${run.failedWrites} writes failed` : '';
    console.log(
      `  ${n} | ${reported} ` +
        `| ${pct(to.temporal - from.temporal)} | ${pct(to.worker - from.worker)} | ` +
        `${pct(to.eventLoop - from.eventLoop)} | ${pgPid ? pct(to.pg - from.pg) : '-'} | ` +
        `${quantile(late, 0.5)} / ${quantile(late, 0.99)} / ${quantile(late, 1)} ms over ${late.length} | ` +
        `${run.skipped}${run.stale ? ` (and ${run.stale} seconds without a report)` : ''} | ` +
        `${heartbeat} | ${run.retried}${failed ? `, ${failed} failed` : ''}${writesFailed} ` +
        `| ${onTime ? 'yes' : 'no'} | ${written} | ` +
        `${pgPid ? `${((to.wal - from.wal) / span / Math.max(1, reporting) / 1024).toFixed(2)} KB` : '-'}`,
    );
    if (pool.failure()) throw new Error('a builder thread died', { cause: pool.failure() });
  }
  console.log(`  largest N on time: ${largestOnTime ?? `none of ${COUNTS.join(', ')}`}`);
} finally {
  worker.shutdown();
  await running;
  await pool.end();
  await database.close();
  await temporal.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
