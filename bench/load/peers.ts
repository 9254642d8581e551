// Load generator against the peers, in one run on this machine, all on loopback:
// 0. One thread against one: our load worker with LOAD_THREADS=1 beside wrk -t1 (HTTP/1.1) and h2load
//    -t1 (nghttp2's benchmarker; HTTP/2 over TLS and h2c, the same connections and streams per
//    connection), each peer's test right after ours, BENCH_ROUNDS times in turn; the median
//    of each side and of the rounds' ratios; then what bounded each side: CPU a request of each
//    generator and of nginx while it served it, and nginx's share of its one core.
// 1. Throughput: nginx (1 worker) serving a small static file; wrk, autocannon, hey and our load
//    worker each with the same connection count for the same time; requests per second and ratios.
//    Ours with LOAD_THREADS=2 (BENCH_THREADS), beside section 0's median with one thread, so the table
//    shows what the threads add.
// 2. Accuracy: a Node target answering after a fixed 50 ms; our p50 beside wrk's.
// 3. Coordinated omission: a fixed arrival rate against a target that stalls once for 1 s; our p99
//    (measured from the scheduled send) beside wrk's (measured from the actual send).
//   npm run --silent bench:load      (BENCH_SECONDS=20 BENCH_CONNECTIONS=100 BENCH_H2_STREAMS=10 BENCH_ROUNDS=3)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { newAccountKey, startService } from '../service.ts';
import { runLoadTest, startNginx, type Row } from './common.ts';
import { cpuOf, median } from './machine.ts';
import { autocannon, h2load, hey, installed, wrk } from './peer-tools.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 100);
/** HTTP/2: users per connection; the connections are BENCH_CONNECTIONS / this. */
const h2Streams = Number(process.env.BENCH_H2_STREAMS ?? 10);
/** Paired rounds of section 0. */
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
if (!(Number.isInteger(rounds) && rounds >= 1)) throw new Error('BENCH_ROUNDS: a whole number of rounds, 1 or more');
/** A run of section 0: its rate, and CPU a request (µs) and nginx's share of its core (see `measured`). */
type Measured = { rps: number; cpuUs: number; targetUs: number; busy: number };

function table(title: string, rows: Row[], reference: string) {
  const base = rows.find((r) => r.tool === reference)!;
  console.log(`\n${title}`);
  console.log('  tool                    req/s      p50 ms   p99 ms   netops / tool');
  for (const r of rows) {
    const ratio = base === r ? '' : (base.rps / r.rps).toFixed(2);
    console.log(
      `  ${r.tool.padEnd(22)} ${Math.round(r.rps).toString().padStart(8)}   ${fmt(r.p50)}   ${fmt(r.p99)}   ${ratio}`,
    );
  }
}
const fmt = (v: number | null) => (v === null ? '     -' : v.toFixed(2).padStart(6));

/**
 * A Node target: every answer after `delayMs`. On `/stall` the whole server pauses once for 1 s
 * (3 s after its start), as a GC pause or a lock would: every answer due in that second waits for its end.
 */
async function delayedTarget(delayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const stallFrom = Date.now() + 3000;
  const stallUntil = stallFrom + 1000;
  const server = http.createServer((req, res) => {
    const now = Date.now();
    const paused = req.url === '/stall' && now >= stallFrom && now < stallUntil;
    setTimeout(() => res.end('ok'), paused ? stallUntil - now : delayMs);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const nginx = await startNginx();
const threads = Number(process.env.BENCH_THREADS ?? 2);
// The one-thread service runs alone for the paired rounds; the other starts after it stopped.
const single = await startService({ NETWORK_ALLOW: '127.0.0.1/32', LOAD_THREADS: '1' });
let singleStopped = false;
let app: Awaited<ReturnType<typeof startService>> | undefined;
try {
  const singleKey = await newAccountKey(single.env);
  const test = {
    targetUrl: nginx.url,
    httpMethod: 'GET',
    concurrentUsers: connections,
    testDuration: Math.max(10, seconds),
    rampUpTime: 0,
  };
  // 0. Paired rounds on the one-thread worker: each ratio compares two runs seconds apart, and the median of
  // the rounds is the figure (one run alone moves by a fifth or more on this machine).
  const h2Test = { ...test, insecureTls: true, httpVersion: '2', http2: { streamsPerConnection: h2Streams } };
  const pairs = [
    {
      name: 'HTTP/1.1',
      peer: 'wrk -t1',
      ours: () => runLoadTest(single.baseUrl, singleKey, test),
      theirs: () => wrk(nginx.url, connections, seconds),
    },
    ...(
      [
        ['h2 (TLS)', nginx.h2Url],
        ['h2c', nginx.h2cUrl],
      ] as const
    ).map(([name, url]) => ({
      name,
      peer: 'h2load -t1',
      ours: async () => {
        const ours = await runLoadTest(single.baseUrl, singleKey, { ...h2Test, targetUrl: url });
        if (ours.results.failed_requests || !ours.results.protocols?.h2)
          throw new Error(`netops over ${name}: ${JSON.stringify(ours.results.errors)}`);
        return ours;
      },
      theirs: () => h2load(url, connections / h2Streams, h2Streams, seconds),
    })),
  ];
  /**
   * A run's rate, with CPU a request in µs: the generator's (ours: the service's whole process) and
   * nginx's while it served it, and nginx's share of its one core over the run (near 1: nginx bounded it).
   */
  const measured = async (generator: () => Promise<Row>, ownCpu?: () => Promise<number>) => {
    const [target0, own0] = [await nginx.cpu(), await ownCpu?.()];
    const row = await generator();
    const [target, own] = [(await nginx.cpu()) - target0, ((await ownCpu?.()) ?? 0) - (own0 ?? 0)];
    const requests = row.requests ?? row.rps * seconds;
    const cpu = ownCpu ? own : (row.cpu ?? NaN);
    // Over the seconds the requests were sent in (a run's start and polls before and after leave nginx idle).
    const busy = target / (requests / row.rps);
    return { rps: row.rps, cpuUs: (cpu / requests) * 1e6, targetUs: (target / requests) * 1e6, busy };
  };
  // Each pair with its rounds.
  const paired = pairs.map((pair) => ({ pair, runs: [] as Array<{ ours: Measured; theirs: Measured }> }));
  try {
    for (let round = 0; round < rounds; round++)
      for (const { pair, runs } of paired)
        runs.push({ ours: await measured(pair.ours, () => cpuOf(single.pid)), theirs: await measured(pair.theirs) });
  } finally {
    singleStopped = true;
    await single.stop();
  }
  app = await startService({ NETWORK_ALLOW: '127.0.0.1/32', LOAD_THREADS: String(threads) });
  const key = await newAccountKey(app.env);
  const one: Row = {
    tool: 'netops, 1 thread',
    rps: median((paired[0]?.runs ?? []).map((p) => p.ours.rps)),
    p50: null,
    p99: null,
  };
  console.log(
    `load generators, ${connections} connections, ${seconds} s each, one after another, on ${os.cpus().length} cores`,
  );
  console.log(
    `\n0. one thread each, ${rounds} rounds, each peer's test right after ours (HTTP/2: ` +
      `${connections / h2Streams} connections x ${h2Streams} streams)`,
  );
  console.log('  protocol    peer          netops req/s   peer req/s   netops / peer: median (each round)');
  const rate = (values: number[], width: number) => Math.round(median(values)).toString().padStart(width);
  for (const { pair, runs } of paired) {
    const ratios = runs.map((p) => p.ours.rps / p.theirs.rps);
    const each = ratios.map((r) => r.toFixed(2)).join(', ');
    const oursRates = runs.map((p) => p.ours.rps);
    const theirRates = runs.map((p) => p.theirs.rps);
    const [ours, theirs, ratio] = [rate(oursRates, 12), rate(theirRates, 10), median(ratios).toFixed(2)];
    console.log(`  ${pair.name.padEnd(10)}  ${pair.peer.padEnd(12)}  ${ours}   ${theirs}   ${ratio} (${each})`);
  }
  // What bounded each side: nginx has one worker, so near 100 % of a core it served as fast as it could.
  console.log(
    "\n  CPU a request in µs, medians of the rounds: each generator's (netops: the service's process, its" +
      "\n  Temporal server apart), nginx's while it served each, and nginx's share of its one core meanwhile",
  );
  // Each column's heading, and its cells right-aligned under it.
  const columns = [
    { head: 'netops', of: (m: Measured) => m.cpuUs, side: 'ours', digits: 1 },
    { head: 'peer', of: (m: Measured) => m.cpuUs, side: 'theirs', digits: 1 },
    { head: 'nginx for netops', of: (m: Measured) => m.targetUs, side: 'ours', digits: 1 },
    { head: 'for peer', of: (m: Measured) => m.targetUs, side: 'theirs', digits: 1 },
    { head: 'busy for netops', of: (m: Measured) => m.busy * 100, side: 'ours', digits: 0, unit: ' %' },
    { head: 'for peer', of: (m: Measured) => m.busy * 100, side: 'theirs', digits: 0, unit: ' %' },
  ] as const;
  console.log(`  ${'protocol'.padEnd(10)}${columns.map((c) => c.head.padStart(c.head.length + 3)).join('')}`);
  for (const { pair, runs } of paired) {
    const cells = columns.map((c) => {
      const figure = median(runs.map((p) => c.of(p[c.side]))).toFixed(c.digits) + ('unit' in c ? c.unit : '');
      return figure.padStart(c.head.length + 3);
    });
    console.log(`  ${pair.name.padEnd(10)}${cells.join('')}`);
  }

  // 1. Throughput against nginx.
  const mine = {
    ...(await runLoadTest(app.baseUrl, key, {
      targetUrl: nginx.url,
      httpMethod: 'GET',
      concurrentUsers: connections,
      testDuration: Math.max(10, seconds),
      rampUpTime: 0,
    })),
    tool: `netops, ${threads} threads`,
  };
  const rows: Row[] = [
    mine,
    one,
    await wrk(nginx.url, connections, seconds),
    await autocannon(nginx.url, connections, seconds),
    // hey is not among Debian's packages.
    ...(await installed('hey', 'scripts/setup --bench installs it', () => hey(nginx.url, connections, seconds))),
  ];
  table(`1. throughput against nginx (1 worker, static file)`, rows, mine.tool);
  console.log(
    `  netops: ${mine.results.total_requests} requests, ${mine.results.failed_requests} failed, measured ` +
      `over ${mine.results.duration_seconds} s; ${threads} threads / 1 thread: ` +
      `${(mine.rps / one.rps).toFixed(2)}`,
  );

  // 2. Accuracy against a fixed 50 ms.
  const slow = await delayedTarget(50);
  try {
    const acc = await runLoadTest(app.baseUrl, key, {
      targetUrl: `${slow.url}/`,
      httpMethod: 'GET',
      concurrentUsers: 50,
      testDuration: 10,
      rampUpTime: 0,
    });
    const w = await wrk(`${slow.url}/`, 50, 10);
    console.log(`\n2. accuracy: target answers after 50 ms, 50 connections, 10 s`);
    console.log(
      `  p50 netops ${acc.p50?.toFixed(2)} ms, wrk ${w.p50?.toFixed(2)} ms: difference ` +
        `${((Math.abs(acc.p50! - w.p50!) / w.p50!) * 100).toFixed(1)} % (target: within 5 %)`,
    );

    // 3. Coordinated omission: 200 requests/s, the target stalls once for 1 s (a fresh target per tool).
    const stallOurs = await delayedTarget(5);
    const stallWrk = await delayedTarget(5);
    try {
      const co = await runLoadTest(app.baseUrl, key, {
        targetUrl: `${stallOurs.url}/stall`,
        httpMethod: 'GET',
        concurrentUsers: 10,
        testDuration: 10,
        rampUpTime: 0,
        requestsPerSecond: 200,
      });
      const cw = await wrk(`${stallWrk.url}/stall`, 10, 10);
      console.log(
        `\n3. coordinated omission: the target answers in 5 ms but pauses once for 1 s, 10 connections, 10 s`,
      );
      console.log(
        `  netops at 200 requests/s (latency from the scheduled send): p99 ${co.p99?.toFixed(0)} ms, max ` +
          `${co.results.max_response_time.toFixed(0)} ms`,
      );
      console.log(`  wrk, closed loop (latency from the actual send):            p99 ${cw.p99?.toFixed(0)} ms`);
      console.log(
        '  The requests due during the stall waited for it: an open-model p99 shows them; a closed loop hides them.',
      );
    } finally {
      await Promise.all([stallOurs.close(), stallWrk.close()]);
    }
  } finally {
    await slow.close();
  }
} finally {
  if (!singleStopped) await single.stop();
  await app?.stop();
  await nginx.stop();
}
