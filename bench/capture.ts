// npm run bench:capture
// Webhook capture on loopback against a bare node:http server answering the same JSON, in one run:
// captures per second and p99 under wrk (one thread, 100 connections, POSTs spread over 1000 webhooks
// so the per-webhook cap never drops a row), the ratio to the bare server, and whether the database
// holds every capture that got a 2xx:
// - rounds: the bare server and ours take turns (BENCH_ROUNDS, 3, of BENCH_SECONDS, 10, each), and the
//   medians are compared. On a shared two-core machine the speed of both drifts by a fifth from one
//   minute to the next; taking turns keeps the drift out of the ratio;
// - after the wrk rounds (each on 1,000 webhooks of its own), rows stored vs wrk's 2xx count (wrk drops the answers still in flight when
//   it stops, so the database may hold up to one per connection more per round, never fewer);
// - then an exact check: autocannon sends a fixed number of requests and waits for every answer;
//   the rows added must equal its 2xx count.
// Runs on the embedded database (PGlite; BENCH_SKIP_EMBEDDED=1 skips it); with DATABASE_URL set, on Postgres as well.
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { newAccountKey, startService } from './service.ts';
import { wrk, type WrkResult } from './wrk.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EXACT_REQUESTS = Number(process.env.BENCH_EXACT_REQUESTS ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const WEBHOOKS = 1000;
const BODY = JSON.stringify({ event: 'invoice.paid', id: 'evt_bench', amount: 4200, currency: 'eur' });

async function startBare(): Promise<{ url: string; paths: string[]; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', 'bench/bare-server.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
  return { url: `http://127.0.0.1:${port}`, paths: Array.from({ length: WEBHOOKS }, (_, n) => `/webhook/bare${n}`), child };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** An account with WEBHOOKS new webhooks, and how to count the requests they hold. */
async function webhookSet(service: { baseUrl: string; env: Record<string, string> }) {
  const key = await newAccountKey(service.env);
  const create = async () => {
    const res = await fetch(`${service.baseUrl}/api/v1/network/my-webhook-create`, { method: 'POST', headers: { 'X-API-Key': key } });
    return `/webhook/${((await res.json()) as { webhook_id: string }).webhook_id}`;
  };
  const paths: string[] = [];
  while (paths.length < WEBHOOKS) paths.push(...(await Promise.all(Array.from({ length: 20 }, create))));
  const stored = async () => {
    const list = await fetch(`${service.baseUrl}/api/v1/network/my-webhooks`, { headers: { 'X-API-Key': key } });
    const { data } = (await list.json()) as { data: { webhooks: Array<{ request_count: number }> } };
    return data.webhooks.reduce((sum, w) => sum + w.request_count, 0);
  };
  return { paths, stored };
}

async function measure(bare: { url: string; paths: string[] }, env: Record<string, string>) {
  const service = await startService(env);
  try {
    // Warm-up of both.
    const warm = await webhookSet(service);
    await wrk(bare.url, bare.paths, BODY, { connections: CONNECTIONS, seconds: 2 });
    await wrk(service.baseUrl, warm.paths, BODY, { connections: CONNECTIONS, seconds: 2 });
    // Each round writes to webhooks of its own, so no webhook reaches its cap of kept requests (at
    // 40,000 captures/s a round of 10 s puts 400 in each of 1,000) and every stored row still counts.
    const rounds: Array<{ bare: WrkResult; ours: WrkResult; stored: () => Promise<number> }> = [];
    for (let r = 0; r < ROUNDS; r++) {
      const set = await webhookSet(service);
      rounds.push({
        bare: await wrk(bare.url, bare.paths, BODY, { connections: CONNECTIONS, seconds: SECONDS }),
        ours: await wrk(service.baseUrl, set.paths, BODY, { connections: CONNECTIONS, seconds: SECONDS }),
        stored: set.stored,
      });
    }
    await new Promise((r) => setTimeout(r, 500)); // let the captures in flight at wrk's cut-off commit
    let wrkStored = 0;
    for (const round of rounds) wrkStored += await round.stored();

    const exactSet = await webhookSet(service);
    let i = 0;
    const exact = await autocannon({
      url: service.baseUrl,
      connections: CONNECTIONS,
      amount: EXACT_REQUESTS,
      requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, setupRequest: (req: any) => ({ ...req, path: exactSet.paths[i++ % WEBHOOKS] }) }],
    });
    return { rounds, wrkStored, exact2xx: exact['2xx'], exactStored: await exactSet.stored(), exactBad: exact.non2xx + exact.errors };
  } finally {
    await service.stop();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const bare = await startBare();
console.log(`\nCapture benchmark, ${new Date().toISOString()}: wrk -t1 -c${CONNECTIONS}, ${ROUNDS} rounds of ${SECONDS}s each for the bare server and ours in turn, POST of ${BODY.length} bytes over ${WEBHOOKS} webhooks, loopback`);

const backends: Array<[string, Record<string, string>]> = process.env.BENCH_SKIP_EMBEDDED ? [] : [['PGlite (embedded)', {}]];
if (process.env.DATABASE_URL) backends.push(['Postgres', { DATABASE_URL: process.env.DATABASE_URL }]);
let failed = false;
try {
  for (const [label, env] of backends) {
    const r = await measure(bare, env);
    const sent2xx = r.rounds.reduce((sum, x) => sum + x.ours.requests - x.ours.non2xx, 0);
    const non2xx = r.rounds.reduce((sum, x) => sum + x.ours.non2xx + x.ours.socketErrors, 0);
    const inFlight = r.wrkStored - sent2xx;
    const ok = non2xx === 0 && inFlight >= 0 && inFlight <= CONNECTIONS * ROUNDS && r.exactStored === r.exact2xx && r.exactBad === 0;
    failed ||= !ok;
    const ours = median(r.rounds.map((x) => x.ours.requestsPerSecond));
    const peer = median(r.rounds.map((x) => x.bare.requestsPerSecond));
    console.log(`\n  ${label}`);
    r.rounds.forEach((x, n) =>
      console.log(`    round ${n + 1}: bare node:http ${fmt(x.bare.requestsPerSecond).padStart(7)} req/s (p99 ${x.bare.p99Ms.toFixed(1)} ms)   netops capture ${fmt(x.ours.requestsPerSecond).padStart(7)} captures/s (p99 ${x.ours.p99Ms.toFixed(1)} ms)   ratio ${(x.ours.requestsPerSecond / x.bare.requestsPerSecond).toFixed(2)}`),
    );
    console.log(
      `    median: netops capture ${fmt(ours)} captures/s, p99 ${median(r.rounds.map((x) => x.ours.p99Ms)).toFixed(1)} ms; bare ${fmt(peer)} req/s; ratio to bare ${(ours / peer).toFixed(2)}\n` +
        `    wrk: ${fmt(sent2xx)} 2xx, ${fmt(r.wrkStored)} stored (in flight at the cut-offs: ${inFlight}), non-2xx and socket errors ${non2xx}\n` +
        `    exact: ${fmt(r.exact2xx)} 2xx of ${fmt(EXACT_REQUESTS)} sent, ${fmt(r.exactStored)} stored: ${r.exactStored === r.exact2xx ? 'equal, nothing lost' : 'MISMATCH'}`,
    );
  }
} finally {
  bare.child.kill();
}
if (failed) process.exitCode = 1;
