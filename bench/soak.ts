// npm run bench:soak
// A public instance under a mixed, sustained load on loopback, for SOAK_SECONDS (300): 200 capture
// senders (each on its own webhook, SOAK_CAPTURE_RATE requests per second each, 5), 500 open live
// streams on those webhooks (their owners' 50 each, so every stream is woken as captures arrive), 20 pollers of another
// user's webhook list (one GET a second each), and
// 2 load tests of 100 users (SOAK_LOAD_RPS requests per second each, 200) against a loopback target.
// Prints every 30 s the pollers' p99 and the API's RSS, and at the end: the pollers' p50/p99/max,
// RSS over time, captures answered 2xx vs stored (netops_captures_stored_total: must be equal),
// and every error by kind. Runs on the embedded target (SOAK_SKIP_EMBEDDED=1 skips it); with
// DATABASE_URL, REDIS_URL, S3_* and TEMPORAL_ADDRESS (and PAYLOAD_KEY) set, on the distributed target as well. Not part
// of `npm test`.
import fs from 'node:fs/promises';
import http from 'node:http';
import { startLoadTarget } from '../test/fixtures/load-target.ts';
import { BACKEND_VARS } from '../test/support/processes.ts';
import { newAccountKey, startService } from './service.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const SENDERS = 200;
const CAPTURE_RATE = Number(process.env.SOAK_CAPTURE_RATE ?? 5);
const STREAMS = 500;
const POLLERS = 20;
const LOAD_TESTS = 2;
const LOAD_USERS = 100;
const LOAD_RPS = Number(process.env.SOAK_LOAD_RPS ?? 200);
const STREAM_USERS = Math.ceil(STREAMS / 50); // enterprise: 50 live streams each

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const percentile = (xs: number[], p: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]! : NaN;

function request(
  base: string,
  method: string,
  path: string,
  key?: string,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      {
        method,
        agent,
        headers: { ...(key ? { 'X-API-Key': key } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (d) => (text += d))
          .on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function rssMb(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+) kB/.exec(await fs.readFile(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

async function storedCaptures(base: string): Promise<number> {
  const text = (await request(base, 'GET', '/metrics')).body;
  return Number(/^netops_captures_stored_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

async function soak(name: string, env: Record<string, string>): Promise<void> {
  const site = await startLoadTarget();
  const service = await startService({ ...env, NETWORK_ALLOW: '127.0.0.1/32', MAX_CONNECTIONS_PER_CLIENT: '10000' });
  const base = service.baseUrl;
  const errors = new Map<string, number>();
  const error = (kind: string) => errors.set(kind, (errors.get(kind) ?? 0) + 1);
  try {
    // One after another: the embedded database's socket serves one admin command at a time.
    const keys: string[] = [];
    for (let i = 0; i < 2 + STREAM_USERS; i++) keys.push(await newAccountKey(service.env));
    const [pollerKey, loadKey, ...ownerKeys] = keys as [string, string, ...string[]];
    // The senders' webhooks belong to the stream users, 20 each; each user's 50 streams watch its own.
    const webhooks: string[] = [];
    const streamHooks: Array<[string, string]> = [];
    for (const key of ownerKeys) {
      const own: string[] = [];
      for (let i = 0; i < SENDERS / ownerKeys.length; i++)
        own.push(JSON.parse((await request(base, 'POST', '/api/v1/network/my-webhook-create', key)).body).webhook_id);
      webhooks.push(...own);
      for (let i = 0; i < 50 && streamHooks.length < STREAMS; i++) streamHooks.push([key, own[i % own.length]!]);
    }
    const initialStored = await storedCaptures(base);
    const until = Date.now() + SECONDS * 1000;
    let streamEvents = 0;
    const streams = streamHooks.map(([key, id]) => {
      const req = http.get(
        `${base}/api/v1/network/my-webhook-requests/events?webhook_id=${id}`,
        { agent, headers: { 'X-API-Key': key } },
        (res) => {
          if (res.statusCode !== 200) error(`stream answered ${res.statusCode}`);
          res
            .setEncoding('utf8')
            .on('data', (chunk: string) => (streamEvents += (chunk.match(/^event: /gm) ?? []).length));
          res.on('error', () => {});
        },
      );
      req.on('error', (e) => Date.now() < until && error(`stream ${(e as NodeJS.ErrnoException).code ?? e.message}`));
      return req;
    });
    const loads = await Promise.all(
      Array.from({ length: LOAD_TESTS }, async () => {
        const reply = await request(
          base,
          'POST',
          '/api/v1/load-testing/start',
          loadKey,
          JSON.stringify({
            targetUrl: `${site.url}/soak`,
            httpMethod: 'GET',
            concurrentUsers: LOAD_USERS,
            testDuration: Math.max(10, SECONDS),
            rampUpTime: 0,
            requestsPerSecond: LOAD_RPS,
          }),
        );
        if (reply.status !== 202) error(`load test start ${reply.status}: ${reply.body.slice(0, 120)}`);
        return JSON.parse(reply.body).test_id as string;
      }),
    );

    let sent2xx = 0;
    const senders = webhooks.map(async (id, i) => {
      await sleep((i * 1000) / SENDERS / Math.max(1, CAPTURE_RATE));
      while (Date.now() < until) {
        const began = Date.now();
        try {
          const reply = await request(base, 'POST', `/webhook/${id}`, undefined, '{"event":"soak"}');
          if (reply.status >= 200 && reply.status < 300) sent2xx += 1;
          else error(`capture ${reply.status}`);
        } catch (e) {
          error(`capture ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
        }
        await sleep(Math.max(0, 1000 / CAPTURE_RATE - (Date.now() - began)));
      }
    });
    const latencies: number[] = [];
    let windowLatencies: number[] = [];
    const pollers = Array.from({ length: POLLERS }, async (_, i) => {
      await sleep((i * 1000) / POLLERS);
      while (Date.now() < until) {
        const began = performance.now();
        try {
          const reply = await request(base, 'GET', '/api/v1/network/my-webhooks', pollerKey);
          if (reply.status !== 200) error(`poll ${reply.status}`);
        } catch (e) {
          error(`poll ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
        }
        const ms = performance.now() - began;
        latencies.push(ms);
        windowLatencies.push(ms);
        await sleep(Math.max(0, 1000 - ms));
      }
    });
    const rss: Array<[number, number]> = [[0, await rssMb(service.pid)]];
    const started = Date.now();
    const sampler = (async () => {
      while (Date.now() < until) {
        await sleep(Math.min(30_000, Math.max(0, until - Date.now())));
        const at = Math.round((Date.now() - started) / 1000);
        rss.push([at, await rssMb(service.pid)]);
        console.log(
          `  [${name}] ${at} s: GET p99 ${percentile(windowLatencies, 99).toFixed(1)} ms over ` +
            `${windowLatencies.length}, RSS ${rss.at(-1)![1].toFixed(0)} MB, captures 2xx ${sent2xx}, stream ` +
            `events ${streamEvents}, errors ${[...errors.values()].reduce((a, b) => a + b, 0)}`,
        );
        windowLatencies = [];
      }
    })();
    await Promise.all([...senders, ...pollers, sampler]);
    for (const s of streams) s.destroy();
    for (const id of loads)
      await request(base, 'POST', `/api/v1/load-testing/stop/${id}`, loadKey).catch(() => undefined);
    await sleep(3000); // the last batches commit
    const stored = (await storedCaptures(base)) - initialStored;
    console.log(
      `\nSoak (${name}), ${SECONDS} s: ${SENDERS} capture senders at ${CAPTURE_RATE}/s, ${STREAMS} live ` +
        `streams, ${POLLERS} pollers, ${LOAD_TESTS} load tests of ${LOAD_USERS} users at ${LOAD_RPS}/s`,
    );
    console.log(
      `  another user's GET /my-webhooks: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ` +
        `${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms over ` +
        `${latencies.length}`,
    );
    console.log(`  RSS over time (s: MB): ${rss.map(([t, mb]) => `${t}: ${mb.toFixed(0)}`).join(', ')}`);
    console.log(
      `  captures answered 2xx ${sent2xx}, stored ${stored}: ` +
        `${stored === sent2xx ? 'equal' : 'NOT EQUAL'}; stream events received ${streamEvents}; load target ` +
        `answered ${site.count('/soak')} requests`,
    );
    console.log(`  errors: ${errors.size ? [...errors].map(([k, n]) => `${k} x${n}`).join(', ') : 'none'}`);
  } finally {
    await service.stop();
    await site.close();
  }
}

const external = Object.fromEntries(BACKEND_VARS.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
if (!process.env.SOAK_SKIP_EMBEDDED) await soak('embedded', {});
if (external.DATABASE_URL && external.REDIS_URL) await soak('distributed', external);
agent.destroy();
