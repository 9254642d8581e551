// npm run bench:cli
// The `netops` command's two figures users feel:
// 1. start-up, BENCH_STARTS runs (20) of each, median and max, beside a bare `node -e ""` (the floor
//    any Node command pays) run in turn with it: `netops --version`, `--help`, `webhook --help`,
//    `webhook list` (a call to the service, a table printed; and against a loopback server that
//    answers at once: the command's own part), and `npx netops --version` in a project that has
//    netops installed (linked, as `npm install PATH` links it) beside `npx` running a bin of that
//    project that does nothing (the floor npx pays). BENCH_STARTS_ONLY=1 measures these only;
// 2. `netops listen`: the time from a capture's arrival (its request sent to the capture URL) to the
//    local receiver's answer, over BENCH_CAPTURES captures (1,000) sent BENCH_RATE a second (20),
//    beside the service's own forwarding (forward_url) to the same receiver in the same run, and
//    over BENCH_SPORADIC captures (30) sent 1.2 s apart (one event now and then, as an integration
//    sends them). No peer command (stripe listen, smee, hookdeck, whcli) runs without its own hosted
//    service, so the service's forwarding is the figure beside ours. Embedded mode, loopback only.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { cliEnv, NETOPS_BIN, startCli } from '../test/support/cli.ts';
import { ROOT, tempDir, type AppProcess } from '../test/support/processes.ts';
import { newAccountKey, startService } from './service.ts';

const STARTS = Number(process.env.BENCH_STARTS ?? 20);
const CAPTURES = Number(process.env.BENCH_CAPTURES ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SPORADIC = Number(process.env.BENCH_SPORADIC ?? 30);
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
const fmt = (xs: number[]) =>
  `median ${percentile(xs, 50).toFixed(1)} ms, p99 ${percentile(xs, 99).toFixed(1)} ms, max ` +
  `${Math.max(...xs).toFixed(1)} ms (${xs.length})`;

/** A project with netops installed as `npm install PATH` installs it (a link), and a bin that does nothing. */
async function projectWithNetops(): Promise<string> {
  const dir = await tempDir('cli-project');
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(path.join(modules, '.bin'), { recursive: true });
  fs.mkdirSync(path.join(modules, 'noop'));
  fs.writeFileSync(path.join(modules, 'noop/package.json'), JSON.stringify({ name: 'noop', bin: 'noop.js' }));
  fs.writeFileSync(path.join(modules, 'noop/noop.js'), '#!/usr/bin/env node\n', { mode: 0o755 });
  fs.symlinkSync(ROOT, path.join(modules, 'netops-service'));
  fs.symlinkSync('../netops-service/bin/netops.js', path.join(modules, '.bin/netops'));
  fs.symlinkSync('../noop/noop.js', path.join(modules, '.bin/noop'));
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'uses-netops', private: true, dependencies: { 'netops-service': `file:${ROOT}` } }),
  );
  return dir;
}

/** A loopback server that answers my-webhooks at once: `webhook list` against it is the command's own cost. */
async function answersAtOnce(): Promise<{ url: string; close: () => Promise<unknown> }> {
  const webhook = {
    webhook_id: 'wh_bench',
    webhook_url: 'http://127.0.0.1/webhook/wh_bench',
    request_count: 3,
    created_at: new Date().toISOString(),
    forward_url: null,
  };
  const body = JSON.stringify({ success: true, data: { total: 1, webhooks: [webhook] } });
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(r)),
  };
}

async function startups(service: AppProcess, key: string): Promise<void> {
  const time = async (file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) => {
    const t = performance.now();
    await run(file, args, options);
    return performance.now() - t;
  };
  const env = await cliEnv(service.baseUrl, key, { NO_COLOR: '1' });
  const stub = await answersAtOnce();
  const stubEnv = await cliEnv(stub.url, 'ntk_bench', { NO_COLOR: '1' });
  const project = await projectWithNetops();
  const bare = () => time(process.execPath, ['-e', '']);
  const netops =
    (...args: string[]) =>
    () =>
      time(process.execPath, [NETOPS_BIN, ...args], { env });
  const figures: Array<[string, () => Promise<number>, string, () => Promise<number>]> = [
    ['netops --version', netops('--version'), 'node -e ""', bare],
    ['netops --help', netops('--help'), 'node -e ""', bare],
    ['netops webhook --help', netops('webhook', '--help'), 'node -e ""', bare],
    ['netops webhook list', netops('webhook', 'list'), 'node -e ""', bare],
    [
      'netops webhook list, against a loopback server that answers at once',
      () => time(process.execPath, [NETOPS_BIN, 'webhook', 'list'], { env: stubEnv }),
      'node -e ""',
      bare,
    ],
    [
      'npx netops --version',
      () => time('npx', ['netops', '--version'], { cwd: project }),
      'npx noop (a bin that does nothing)',
      () => time('npx', ['noop'], { cwd: project }),
    ],
  ];
  for (const [name, ours, floorName, floor] of figures) {
    await ours(); // the first start fills Node's compile cache
    const mine: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      mine.push(await ours());
      bare.push(await floor());
    }
    console.log(
      `start-up: ${name} ${fmt(mine)}; ${floorName} ${fmt(bare)}; ratio of medians ` +
        `${(percentile(mine, 50) / percentile(bare, 50)).toFixed(2)}`,
    );
  }
  await stub.close();
}

/** A loopback receiver: when each capture (by its x-bench header) got its answer. */
async function receiver() {
  const answered = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end(() => answered.set(String(req.headers['x-bench']), performance.now())));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answered,
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Sends `n` captures `gapMs` apart to `url`; the latency of each once the receiver answered it. */
async function latencies(
  url: string,
  tag: string,
  n: number,
  gapMs: number,
  answered: Map<string, number>,
): Promise<number[]> {
  const sent = new Map<string, number>();
  const agent = new http.Agent({ keepAlive: true });
  const began = performance.now();
  for (let i = 0; i < n; i++) {
    const id = `${tag}-${i}`;
    await sleep(Math.max(0, began + i * gapMs - performance.now()));
    sent.set(id, performance.now());
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-bench': id } },
      (res) => res.resume(),
    );
    req.end(JSON.stringify({ id, type: 'invoice.paid', amount: i }));
  }
  const until = Date.now() + 60_000;
  while ([...sent.keys()].some((id) => !answered.has(id)) && Date.now() < until) await sleep(50);
  agent.destroy();
  const missing = [...sent.keys()].filter((id) => !answered.has(id)).length;
  if (missing) console.log(`  ${tag}: ${missing} captures never reached the receiver`);
  return [...sent].filter(([id]) => answered.has(id)).map(([id, t]) => answered.get(id)! - t);
}

async function listenVersusForwarding(service: AppProcess, key: string): Promise<void> {
  const rx = await receiver();
  try {
    const create = async (body: unknown) =>
      (await (
        await fetch(`${service.baseUrl}/api/v1/network/my-webhook-create`, {
          method: 'POST',
          headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as { webhook_id: string; webhook_url: string };
    const listened = await create({ retention: { max_requests: 10_000 } });
    const forwarded = await create({ retention: { max_requests: 10_000 }, forward_url: rx.url });
    const listen = startCli(
      ['listen', listened.webhook_id, '--forward-to', rx.url, '--json'],
      await cliEnv(service.baseUrl, key),
    );
    await listen.waitFor(/Forwarding captures/);
    await sleep(1000);
    const gap = 1000 / RATE;
    console.log(
      `listen, ${CAPTURES} captures at ${RATE}/s: ` +
        `${fmt(await latencies(listened.webhook_url, 'listen', CAPTURES, gap, rx.answered))}`,
    );
    console.log(
      `forward_url (the service's own forwarding), same: ` +
        `${fmt(await latencies(forwarded.webhook_url, 'forward', CAPTURES, gap, rx.answered))}`,
    );
    console.log(
      `listen, ${SPORADIC} captures 1.2 s apart: ` +
        `${fmt(await latencies(listened.webhook_url, 'sporadic-listen', SPORADIC, 1200, rx.answered))}`,
    );
    console.log(
      `forward_url, same: ` +
        `${fmt(await latencies(forwarded.webhook_url, 'sporadic-forward', SPORADIC, 1200, rx.answered))}`,
    );
    listen.child.kill('SIGINT');
    await listen.ended;
  } finally {
    await rx.close();
  }
}

const service = await startService({ NETWORK_ALLOW: '127.0.0.1/32' });
try {
  const key = await newAccountKey(service.env);
  await startups(service, key);
  if (process.env.BENCH_STARTS_ONLY !== '1') await listenVersusForwarding(service, key);
} finally {
  await service.stop();
}
