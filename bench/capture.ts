// npm run bench:capture
// Webhook capture on loopback against a bare node:http server answering the same JSON, in one run:
// captures per second and p99 under wrk (one thread, 100 connections, POSTs spread over 200 webhooks
// so the per-webhook cap never drops a row), the ratio to the bare server, and whether the database
// holds every capture that got a 2xx; for five kinds of webhook in turn (BENCH_VARIANTS): plain,
// with a custom response (201, a text body), with 20 response rules none of which holds for the
// bench's request (so every one is tried: method, globs, header and query tests, JSON pointers and
// regular expressions over the body; the answer is then plain's), with 20 simple rules (a method and
// a path each: what the rule count alone costs), and forwarding every capture to a loopback receiver
// of this process (NETWORK_ALLOW=127.0.0.1/32), whose deliveries are counted; its webhooks are
// deleted after their round so their backlog does not weigh on the next measurement:
// - rounds: the bare server and ours take turns (BENCH_ROUNDS, 3, of BENCH_SECONDS, 10, each), and the
//   medians are compared. On a shared two-core machine the speed of both drifts by a fifth from one
//   minute to the next; taking turns keeps the drift out of the ratio;
// - after the wrk rounds (each on webhooks of its own), rows stored vs wrk's 2xx count (wrk drops the answers still in
// flight when
//   it stops, so the database may hold up to one per connection more per round, never fewer);
// - then an exact check: autocannon sends a fixed number of requests and waits for every answer;
//   the rows added must equal its 2xx count.
// Runs on the embedded database (PGlite; BENCH_SKIP_EMBEDDED=1 skips it); with DATABASE_URL set, on Postgres as well.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { NODE_SCRIPT_FLAGS, SERVICE_MALLOC_ENV } from '../lib/threads/node-script.ts';
import { PLAN_LIMITS } from '../lib/plans.ts';
import { newAccountKey, startService } from './service.ts';
import { wrk, type WrkResult } from './wrk.ts';
import { captureVariants } from './capture-variants.ts';
import { median } from './load/machine.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EXACT_REQUESTS = Number(process.env.BENCH_EXACT_REQUESTS ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
/** Webhooks per kind (BENCH_WEBHOOKS): 200, the most a plan lets forward, so every kind spreads over as many. */
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 200);
const DRAIN_SECONDS = Number(process.env.BENCH_DRAIN_SECONDS ?? 60);
const BODY = JSON.stringify({ event: 'invoice.paid', id: 'evt_bench', amount: 4200, currency: 'eur' });

/** The forwarding variant's receiver: counts what it is sent. */
let forwarded = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    forwarded += 1;
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
const VARIANTS = captureVariants(receiverUrl).filter(
  ([name]) => !process.env.BENCH_VARIANTS || process.env.BENCH_VARIANTS.split(',').includes(name),
);

async function startBare(): Promise<{ url: string; paths: string[]; child: ChildProcess }> {
  // With the service's malloc settings, as the service's process has them (test/support/processes.ts).
  const child = spawn(process.execPath, [...NODE_SCRIPT_FLAGS, 'bench/bare-server.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...SERVICE_MALLOC_ENV },
  });
  const port = await new Promise<string>((resolve) =>
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    paths: Array.from({ length: WEBHOOKS }, (_, n) => `/webhook/bare${n}`),
    child,
  };
}

/** An account with WEBHOOKS new webhooks (with `settings`), how to count the requests they hold, and to delete them. */
async function webhookSet(
  service: { baseUrl: string; env: Record<string, string> },
  settings: Record<string, unknown> = {},
  count = WEBHOOKS,
) {
  const key = await newAccountKey(service.env);
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const create = async () => {
    const res = await fetch(`${service.baseUrl}/api/v1/network/my-webhook-create`, {
      method: 'POST',
      headers,
      body: JSON.stringify(settings),
    });
    if (res.status !== 201) throw new Error(`creating a webhook: ${res.status} ${await res.text()}`);
    return `/webhook/${((await res.json()) as { webhook_id: string }).webhook_id}`;
  };
  const paths: string[] = [];
  while (paths.length < count) paths.push(...(await Promise.all(Array.from({ length: 20 }, create))));
  const stored = async () => {
    const list = await fetch(`${service.baseUrl}/api/v1/network/my-webhooks`, { headers: { 'X-API-Key': key } });
    const { data } = (await list.json()) as { data: { webhooks: Array<{ request_count: number }> } };
    return data.webhooks.reduce((sum, w) => sum + w.request_count, 0);
  };
  const remove = async () => {
    for (let i = 0; i < paths.length; i += 20) {
      await Promise.all(
        paths.slice(i, i + 20).map((p) =>
          fetch(`${service.baseUrl}/api/v1/network/my-webhook-delete`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ webhook_id: p.split('/')[2] }),
          }),
        ),
      );
    }
  };
  return { paths, stored, remove };
}

interface Round {
  bare: WrkResult;
  ours: Record<string, WrkResult>;
  stored: Array<() => Promise<number>>;
  /**
   * Deliveries the forwarding variant's receiver got during its run, and after it (until all were sent, or
   * DRAIN_SECONDS).
   */
  forwardedDuring: number;
  forwardedAfter: number;
  drainSeconds: number;
  forwardable: number;
}

async function measure(bare: { url: string; paths: string[] }, env: Record<string, string>) {
  const service = await startService(env);
  try {
    // Warm-up of both.
    const warm = await webhookSet(service);
    await wrk(bare.url, bare.paths, BODY, { connections: CONNECTIONS, seconds: 2 });
    await wrk(service.baseUrl, warm.paths, BODY, { connections: CONNECTIONS, seconds: 2 });
    // Each round writes to webhooks of its own, each keeping up to 10,000 captures (its retention),
    // so no webhook reaches its cap of kept requests and every stored row still counts.
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round: Round = {
        bare: await wrk(bare.url, bare.paths, BODY, { connections: CONNECTIONS, seconds: SECONDS }),
        ours: {},
        stored: [],
        forwardedDuring: 0,
        forwardedAfter: 0,
        drainSeconds: 0,
        forwardable: 0,
      };
      // Each round starts with the next kind, so that no kind always runs on the fullest table or
      // right after a forwarding round's drain.
      for (const [name, settings] of [
        ...VARIANTS.slice(r % VARIANTS.length),
        ...VARIANTS.slice(0, r % VARIANTS.length),
      ]) {
        const set = await webhookSet(
          service,
          settings,
          name === 'forwarding' ? Math.min(WEBHOOKS, PLAN_LIMITS.enterprise.forwardingWebhooks) : WEBHOOKS,
        );
        const before = forwarded;
        round.ours[name] = await wrk(service.baseUrl, set.paths, BODY, { connections: CONNECTIONS, seconds: SECONDS });
        if (name !== 'forwarding') {
          round.stored.push(set.stored);
          continue;
        }
        round.forwardedDuring = forwarded - before;
        await new Promise((res) => setTimeout(res, 500));
        const count = await set.stored(); // counted before the webhooks go
        // After the burst: how long the forwarder takes to send the rest (at most DRAIN_SECONDS).
        const drainFrom = performance.now();
        while (forwarded - before < count && performance.now() - drainFrom < DRAIN_SECONDS * 1000)
          await new Promise((res) => setTimeout(res, 250));
        round.forwardedAfter = forwarded - before - round.forwardedDuring;
        round.drainSeconds = (performance.now() - drainFrom) / 1000;
        round.forwardable = count;
        round.stored.push(async () => count);
        await set.remove(); // their backlog ends with them
      }
      rounds.push(round);
    }
    await new Promise((r) => setTimeout(r, 500)); // let the captures in flight at wrk's cut-off commit
    let wrkStored = 0;
    for (const round of rounds) for (const stored of round.stored) wrkStored += await stored();

    const exactSet = await webhookSet(service);
    let i = 0;
    const exact = await autocannon({
      url: service.baseUrl,
      connections: CONNECTIONS,
      amount: EXACT_REQUESTS,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: BODY,
          setupRequest: (req: any) => ({ ...req, path: exactSet.paths[i++ % WEBHOOKS] }),
        },
      ],
    });
    return {
      rounds,
      wrkStored,
      exact2xx: exact['2xx'],
      exactStored: await exactSet.stored(),
      exactBad: exact.non2xx + exact.errors,
    };
  } catch (err) {
    console.error(`the service's last output:\n${service.output().slice(-4000)}`);
    throw err;
  } finally {
    await service.stop();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const bare = await startBare();
console.log(
  `\nCapture benchmark, ${new Date().toISOString()}: wrk -t1 -c${CONNECTIONS}, ${ROUNDS} rounds of ` +
    `${SECONDS}s each for the bare server and ours (${VARIANTS.map(([n]) => n).join(', ')}) in turn, each ` +
    `round starting with the next kind, POST of ${BODY.length} bytes over ${WEBHOOKS} webhooks, loopback`,
);

const backends: Array<[string, Record<string, string>]> = process.env.BENCH_SKIP_EMBEDDED
  ? []
  : [['PGlite (embedded)', {}]];
if (process.env.DATABASE_URL) backends.push(['Postgres', { DATABASE_URL: process.env.DATABASE_URL }]);
let failed = false;
try {
  for (const [label, env] of backends) {
    // One address plays every sender here: the per-client connection bound would reset some of them.
    const r = await measure(bare, { NETWORK_ALLOW: '127.0.0.1/32', MAX_CONNECTIONS_PER_CLIENT: '100000', ...env });
    const all = r.rounds.flatMap((x) => Object.values(x.ours));
    const sent2xx = all.reduce((sum, x) => sum + x.requests - x.non2xx, 0);
    const non2xx = all.reduce((sum, x) => sum + x.non2xx + x.socketErrors, 0);
    const inFlight = r.wrkStored - sent2xx;
    const ok =
      non2xx === 0 &&
      inFlight >= 0 &&
      inFlight <= CONNECTIONS * all.length &&
      r.exactStored === r.exact2xx &&
      r.exactBad === 0;
    failed ||= !ok;
    const peer = median(r.rounds.map((x) => x.bare.requestsPerSecond));
    const plain = median(r.rounds.map((x) => x.ours[VARIANTS[0]![0]]!.requestsPerSecond));
    console.log(`\n  ${label}`);
    for (const [n, x] of r.rounds.entries()) {
      console.log(
        `    round ${n + 1}: bare node:http ${fmt(x.bare.requestsPerSecond).padStart(7)} req/s (p99 ` +
          `${x.bare.p99Ms.toFixed(1)} ms)` +
          VARIANTS.map(([name]): [string, WrkResult] => [name, x.ours[name]!])
            .map(
              ([name, o]) =>
                `   ${name} ${fmt(o.requestsPerSecond).padStart(7)}/s (p99 ${o.p99Ms.toFixed(1)} ms, ` +
                `${(o.requestsPerSecond / x.bare.requestsPerSecond).toFixed(2)})`,
            )
            .join('') +
          (x.ours.forwarding
            ? `\n      forwarding: ${fmt(x.forwardedDuring)} delivered during its run (deliveries yield to ` +
              `captures), then ${fmt(x.forwardedAfter)} in ${x.drainSeconds.toFixed(1)} s after it ` +
              `(${fmt(x.forwardedAfter / Math.max(x.drainSeconds, 0.001))}/s), of ${fmt(x.forwardable)} ` +
              `captured`
            : ''),
      );
    }
    for (const [name] of VARIANTS) {
      const ours = median(r.rounds.map((x) => x.ours[name]!.requestsPerSecond));
      // Beside the ratio of medians, the median of each round's own ratio (both kinds ran in that round).
      const perRound = r.rounds.map(
        (x) => x.ours[name]!.requestsPerSecond / x.ours[VARIANTS[0]![0]]!.requestsPerSecond,
      );
      const toPlain =
        name === VARIANTS[0]![0]
          ? ''
          : `; to ${VARIANTS[0]![0]} ${(ours / plain).toFixed(2)} (rounds ` +
            `${perRound.map((x) => x.toFixed(2)).join(', ')}: median ${median(perRound).toFixed(2)})`;
      console.log(
        `    median ${name}: ${fmt(ours)} captures/s, p99 ` +
          `${median(r.rounds.map((x) => x.ours[name]!.p99Ms)).toFixed(1)} ms; ratio to bare ` +
          `${(ours / peer).toFixed(2)}${toPlain}`,
      );
    }
    console.log(
      `    bare: ${fmt(peer)} req/s (median)\n` +
        `    wrk: ${fmt(sent2xx)} 2xx, ${fmt(r.wrkStored)} stored (in flight at the cut-offs: ` +
        `${inFlight}), non-2xx and socket errors ${non2xx}\n` +
        `    exact: ${fmt(r.exact2xx)} 2xx of ${fmt(EXACT_REQUESTS)} sent, ${fmt(r.exactStored)} stored: ` +
        `${r.exactStored === r.exact2xx ? 'equal, nothing lost' : 'MISMATCH'}`,
    );
  }
} finally {
  bare.child.kill();
  receiver.close();
}
if (failed) process.exitCode = 1;
