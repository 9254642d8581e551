// Many users on one small machine: 10,000 concurrent users for 30 s against nginx on loopback.
// The service runs as in production, one process per role (API, workflows worker, load worker), all
// on this machine. Prints whether the test completed, the load worker's peak memory, and how fast the
// API's status endpoint answered during the test.
//   npm run --silent bench:load-users      (BENCH_USERS=10000 BENCH_SECONDS=30)
import fs from 'node:fs/promises';
import { newAccountKey } from '../service.ts';
import { startApp, tempDir, type AppProcess } from '../../test/support/processes.ts';
import { runLoadTest, startNginx } from './common.ts';

const users = Number(process.env.BENCH_USERS ?? 10_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 30);

async function peakRssMb(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

const nginx = await startNginx();
const roles: AppProcess[] = [];
const app = await startApp({ ROLE: 'api', DATA_DIR: await tempDir('bench-users'), NETWORK_ALLOW: '127.0.0.1/32', LOG_LEVEL: 'error' });
roles.push(app);
roles.push(await startApp({ ...app.env, ROLE: 'worker:workflows', PORT: '' }));
const loadWorker = await startApp({ ...app.env, ROLE: 'worker:load', PORT: '' });
roles.push(loadWorker);
try {
  const key = await newAccountKey(app.env);
  const polls: number[] = [];
  const run = await runLoadTest(app.baseUrl, key, { targetUrl: nginx.url, httpMethod: 'GET', concurrentUsers: users, testDuration: seconds, rampUpTime: 10 }, (status, ms) => {
    if (status.status === 'running') polls.push(ms);
  }, 200);
  const peak = await peakRssMb(loadWorker.pid);
  polls.sort((a, b) => a - b);
  const p99 = polls[Math.min(polls.length - 1, Math.floor(polls.length * 0.99))] ?? NaN;
  const r = run.results;
  console.log(`${users} concurrent users for ${seconds} s (ramp-up 10 s) against nginx on loopback; API, workflows and load worker as separate processes`);
  console.log(`  completed: ${r.total_requests} requests, ${r.failed_requests} failed, ${Math.round(r.throughput)} requests/s, p99 ${r.p99_response_time} ms, errors ${JSON.stringify(r.errors)}`);
  console.log(`  peak memory of the load worker process: ${Math.round(peak)} MB (target: under 1024 MB)`);
  console.log(`  status endpoint during the test: ${polls.length} polls, p99 ${p99.toFixed(1)} ms, max ${(polls.at(-1) ?? NaN).toFixed(1)} ms (target: p99 under 200 ms)`);
} finally {
  for (const p of roles.reverse()) await p.stop();
  await nginx.stop();
}
