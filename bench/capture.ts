// npm run bench:capture
// Webhook capture on loopback against a bare node:http server answering the same JSON, in one run:
// captures per second and p99 under wrk (one thread, 100 connections, 10 s, POSTs spread over 1000
// webhooks so the per-webhook cap never drops a row), the ratio to the bare server, and whether the
// database holds every capture that got a 2xx:
// - after the wrk run, rows stored vs wrk's count (wrk drops the answers still in flight when it stops,
//   so the database may hold up to one per connection more, never fewer);
// - then an exact check: autocannon sends a fixed number of requests and waits for every answer;
//   the rows added must equal its 2xx count.
// Runs on the embedded database (PGlite; BENCH_SKIP_EMBEDDED=1 skips it); with DATABASE_URL set, on Postgres as well.
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { newAccountKey, startService } from './service.ts';
import { wrk, type WrkResult } from './wrk.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const EXACT_REQUESTS = Number(process.env.BENCH_EXACT_REQUESTS ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const WEBHOOKS = 1000;
const BODY = JSON.stringify({ event: 'invoice.paid', id: 'evt_bench', amount: 4200, currency: 'eur' });

async function bare(): Promise<WrkResult> {
  const child = spawn(process.execPath, ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', 'bench/bare-server.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
  try {
    const paths = Array.from({ length: WEBHOOKS }, (_, n) => `/webhook/bare${n}`);
    await wrk(`http://127.0.0.1:${port}`, paths, BODY, { connections: CONNECTIONS, seconds: 2 }); // warm-up
    return await wrk(`http://127.0.0.1:${port}`, paths, BODY, { connections: CONNECTIONS, seconds: SECONDS });
  } finally {
    child.kill();
  }
}

async function ours(env: Record<string, string>) {
  const service = await startService(env);
  try {
    const key = await newAccountKey(service.env);
    const paths: string[] = [];
    for (let n = 0; n < WEBHOOKS; n++) {
      const res = await fetch(`${service.baseUrl}/api/v1/network/my-webhook-create`, { method: 'POST', headers: { 'X-API-Key': key } });
      paths.push(`/webhook/${((await res.json()) as { webhook_id: string }).webhook_id}`);
    }
    const stored = async () => {
      const list = await fetch(`${service.baseUrl}/api/v1/network/my-webhooks`, { headers: { 'X-API-Key': key } });
      const { data } = (await list.json()) as { data: { webhooks: Array<{ request_count: number }> } };
      return data.webhooks.reduce((sum, w) => sum + w.request_count, 0);
    };
    await wrk(service.baseUrl, paths, BODY, { connections: CONNECTIONS, seconds: 2 }); // warm-up
    const before = await stored();
    const measured = await wrk(service.baseUrl, paths, BODY, { connections: CONNECTIONS, seconds: SECONDS });
    await new Promise((r) => setTimeout(r, 500)); // let the captures in flight at wrk's cut-off commit
    const afterWrk = await stored();

    let i = 0;
    const exact = await autocannon({
      url: service.baseUrl,
      connections: CONNECTIONS,
      amount: EXACT_REQUESTS,
      requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, setupRequest: (req: any) => ({ ...req, path: paths[i++ % paths.length] }) }],
    });
    const afterExact = await stored();
    return { measured, wrkStored: afterWrk - before, exact2xx: exact['2xx'], exactStored: afterExact - afterWrk, exactBad: exact.non2xx + exact.errors };
  } finally {
    await service.stop();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const peer = await bare();
console.log(`\nCapture benchmark, ${new Date().toISOString()}: wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, POST of ${BODY.length} bytes over ${WEBHOOKS} webhooks, loopback`);
console.log(`  bare node:http server         ${fmt(peer.requestsPerSecond).padStart(7)} req/s        p99 ${peer.p99Ms.toFixed(1)} ms`);

const backends: Array<[string, Record<string, string>]> = process.env.BENCH_SKIP_EMBEDDED ? [] : [['PGlite (embedded)', {}]];
if (process.env.DATABASE_URL) backends.push(['Postgres', { DATABASE_URL: process.env.DATABASE_URL }]);
let failed = false;
for (const [label, env] of backends) {
  const r = await ours(env);
  const m = r.measured;
  const lostUnderWrk = m.requests - m.non2xx - r.wrkStored;
  const ok = m.non2xx === 0 && lostUnderWrk <= 0 && -lostUnderWrk <= CONNECTIONS && r.exactStored === r.exact2xx && r.exactBad === 0;
  failed ||= !ok;
  console.log(
    `  netops capture, ${label.padEnd(18)} ${fmt(m.requestsPerSecond).padStart(7)} captures/s   p99 ${m.p99Ms.toFixed(1)} ms   ratio to bare ${(m.requestsPerSecond / peer.requestsPerSecond).toFixed(2)}\n` +
      `      wrk: ${fmt(m.requests - m.non2xx)} 2xx, ${fmt(r.wrkStored)} stored (in flight at cut-off: ${r.wrkStored - (m.requests - m.non2xx)}), non-2xx ${m.non2xx}, socket errors ${m.socketErrors}\n` +
      `      exact: ${fmt(r.exact2xx)} 2xx of ${fmt(EXACT_REQUESTS)} sent, ${fmt(r.exactStored)} stored: ${r.exactStored === r.exact2xx ? 'equal, nothing lost' : 'MISMATCH'}`,
  );
}
if (failed) process.exitCode = 1;
