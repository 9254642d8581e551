// Many users on one small machine: 10,000 concurrent users for 30 s against nginx on loopback, in
// each mode (BENCH_MODES, both by default):
// - embedded: the all-in-one `npm start` process (API, workers, PGlite, the embedded Temporal);
//   its RSS idle before the test, its peak growth during it;
// - roles: one process per role (API, workflows worker, load worker), as in production; the load
//   worker's peak memory.
// Each prints whether the test completed and how fast the API's status endpoint answered during it.
// The process idles BENCH_IDLE_MS (5,000) before the test; 45,000 lets V8's memory reducer shrink its heap
// first (about 10 s after start), as it has in a process that waited for its test.
//   npm run --silent bench:load-users      (BENCH_USERS=10000 BENCH_SECONDS=30 BENCH_IDLE_MS=5000)
import fs from 'node:fs/promises';
import { newAccountKey } from '../service.ts';
import { startApp, tempDir, type AppProcess } from '../../test/support/processes.ts';
import { runLoadTest, startNginx } from './common.ts';
import { quantile } from './machine.ts';

const users = Number(process.env.BENCH_USERS ?? 10_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 30);
const modes = (process.env.BENCH_MODES ?? 'embedded,roles').split(',');
const idleMs = Number(process.env.BENCH_IDLE_MS || 5000);
if (!Number.isFinite(idleMs) || idleMs < 0) throw new Error('BENCH_IDLE_MS: a number of milliseconds');

/** A process's resident memory now and at its peak (VmRSS, VmHWM), MB. */
async function rssMb(pid: number): Promise<{ now: number; peak: number }> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) / 1024;
  return { now: kb('VmRSS'), peak: kb('VmHWM') };
}

async function measure(app: AppProcess, label: string, memoryOf: AppProcess): Promise<void> {
  const key = await newAccountKey(app.env);
  await new Promise((r) => setTimeout(r, idleMs)); // idle: whatever loads at start has loaded
  const idle = await rssMb(memoryOf.pid);
  const polls: number[] = [];
  const run = await runLoadTest(
    app.baseUrl,
    key,
    { targetUrl: nginx.url, httpMethod: 'GET', concurrentUsers: users, testDuration: seconds, rampUpTime: 10 },
    (status, ms) => {
      if (status.status === 'running') polls.push(ms);
    },
    200,
  );
  const after = await rssMb(memoryOf.pid);
  polls.sort((a, b) => a - b);
  const p99 = quantile(polls, 0.99);
  const r = run.results;
  console.log(`\n${users} concurrent users for ${seconds} s (ramp-up 10 s) against nginx on loopback; ${label}`);
  console.log(
    `  completed: ${r.total_requests} requests, ${r.failed_requests} failed, ${Math.round(r.throughput)} ` +
      `requests/s, p99 ${r.p99_response_time} ms, errors ${JSON.stringify(r.errors)}`,
  );
  console.log(
    `  memory of the ${memoryOf === app ? 'process' : 'load worker process'}: ${Math.round(idle.now)} MB ` +
      `idle before the test, peak ${Math.round(after.peak)} MB (growth ${Math.round(after.peak - idle.now)} ` +
      `MB; target: under 1024 MB)`,
  );
  console.log(
    `  status endpoint during the test: ${polls.length} polls, p99 ${p99.toFixed(1)} ms, max ` +
      `${(polls.at(-1) ?? NaN).toFixed(1)} ms (target: p99 under 100 ms)`,
  );
}

const nginx = await startNginx();
try {
  if (modes.includes('embedded')) {
    const app = await startApp({
      DATA_DIR: await tempDir('bench-users'),
      NETWORK_ALLOW: '127.0.0.1/32',
      LOG_LEVEL: 'error',
    });
    try {
      await measure(
        app,
        `the embedded mode (one process, LOAD_THREADS ${app.env.LOAD_THREADS ?? 'one per core'})`,
        app,
      );
    } finally {
      await app.stop();
    }
  }
  if (modes.includes('roles')) {
    const roles: AppProcess[] = [];
    try {
      const app = await startApp({
        ROLE: 'api',
        DATA_DIR: await tempDir('bench-users'),
        NETWORK_ALLOW: '127.0.0.1/32',
        LOG_LEVEL: 'error',
      });
      roles.push(app);
      roles.push(await startApp({ ...app.env, ROLE: 'worker:workflows', PORT: '' }));
      const loadWorker = await startApp({ ...app.env, ROLE: 'worker:load', PORT: '' });
      roles.push(loadWorker);
      await measure(app, 'API, workflows and load worker as separate processes', loadWorker);
    } finally {
      for (const p of roles.reverse()) await p.stop();
    }
  }
} finally {
  await nginx.stop();
}
