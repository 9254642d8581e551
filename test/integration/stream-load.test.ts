// A thousand open live streams cost an API process next to nothing while nothing happens (they are
// woken by notifications, not polling the database; under 200 MB between them), each still gets its webhook's new
// captures,
// and another user's request is answered in time meanwhile.
import fs from 'node:fs/promises';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript, startOwnApi, type AppProcess } from '../support/processes.ts';
import { targets } from '../support/client.ts';

const STREAMS = 1000;
const USERS = 20; // enterprise: 50 streams each
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resident memory of the process, in MB. */
async function rssMb(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+) kB/.exec(await fs.readFile(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** CPU seconds (user + system) the process has used so far, from /proc. */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

describe('a thousand live streams', () => {
  const target = targets()[0]!;
  let app: AppProcess;
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const open: http.ClientRequest[] = [];

  beforeAll(async () => {
    // An API process of its own (on the suite's Temporal server): its CPU is this test's alone.
    app = await startOwnApi(target.temporalAddress, 'streams', { MAX_CONNECTIONS_PER_CLIENT: '5000' });
  }, 180_000);
  afterAll(async () => {
    for (const req of open) req.destroy();
    await app.stop();
  });

  const request = (method: string, path: string, key: string) =>
    new Promise<{ status: number; body: string; ms: number }>((resolve, reject) => {
      const began = performance.now();
      const req = http.request(`${app.baseUrl}${path}`, { method, agent, headers: { 'X-API-Key': key } }, (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (d) => (body += d))
          .on('end', () => resolve({ status: res.statusCode!, body, ms: performance.now() - began }));
      });
      req.on('error', reject).end();
    });

  /** Opens a stream and resolves once its first event (what was kept) arrived; `events` grows after. */
  const stream = (path: string, key: string) =>
    new Promise<{ events: string[] }>((resolve, reject) => {
      const got = { events: [] as string[] };
      const req = http.get(`${app.baseUrl}${path}`, { agent, headers: { 'X-API-Key': key } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
        res.setEncoding('utf8').on('data', (chunk: string) => {
          for (const m of chunk.matchAll(/^event: (\w+)$/gm)) got.events.push(m[1]!);
          if (got.events.length === 1) resolve(got);
        });
      });
      req.on('error', reject);
      open.push(req);
    });

  it('idles without work, delivers new captures to each, and keeps answering other users', async () => {
    const keys: string[] = [];
    for (let i = 0; i < USERS + 1; i++) {
      const made = await runScript(
        'scripts/admin.ts',
        ['create-key', '--email', `streams-${i}@example.test`, '--plan', 'enterprise'],
        app.env,
      );
      expect(made.code, made.stderr).toBe(0);
      keys.push(JSON.parse(made.stdout).api_key);
    }
    const other = keys.pop()!;
    const webhooks: string[] = [];
    for (const key of keys)
      webhooks.push(JSON.parse((await request('POST', '/api/v1/network/my-webhook-create', key)).body).webhook_id);
    const rssBefore = await rssMb(app.pid);
    const streams = [];
    for (let i = 0; i < STREAMS; i += 50) {
      streams.push(
        ...(await Promise.all(
          Array.from({ length: 50 }, (_, j) =>
            stream(
              `/api/v1/network/my-webhook-requests/events?webhook_id=${webhooks[(i + j) % USERS]}`,
              keys[(i + j) % USERS]!,
            ),
          ),
        )),
      );
    }
    expect(streams).toHaveLength(STREAMS);

    // Idle: nothing is captured for 17 s.
    await sleep(1000);
    // The streams' memory is in every reading of the process's RSS while they are open; the garbage
    // of opening them is in the readings until V8's memory reducer runs, some seconds into the
    // idle time (V8 runs it ~8 s after a full collection while the process is idle; here the API's
    // heap shrank from 227 to 99 MB 6-8 s after the streams opened): the lowest reading of 16 s bounds
    // what the streams hold. (One reading 6 s in varied from 62 to
    // 184 MB between runs, by when the collectors of the process's two heaps, the API's and the
    // embedded database's thread's, had last run.)
    const before = await cpuSeconds(app.pid);
    const readings: number[] = [];
    for (let i = 0; i < 53; i++) {
      await sleep(300);
      readings.push(await rssMb(app.pid));
    }
    const idleShare = ((await cpuSeconds(app.pid)) - before) / 16;
    const rssAdded = Math.min(...readings) - rssBefore;

    // Another user's requests meanwhile.
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const reply = await request('GET', '/api/v1/network/my-webhooks', other);
      expect(reply.status).toBe(200);
      times.push(reply.ms);
    }

    // A capture reaches every stream of its webhook, and only those.
    const captured = await request('POST', `/webhook/${webhooks[0]}`, other);
    expect(captured.status).toBe(200);
    await sleep(2000);
    const woken = streams.filter((s) => s.events.length > 1).length;

    // Under 5 % of a core is the aim (issue 17); a loaded test machine gets some room. Polling every
    // second took a whole core for this many streams.
    expect(idleShare).toBeLessThan(0.15);
    // Under 200 KB a stream. The lowest reading was -12 to 60 MB above the one before the streams
    // opened in 3 runs of this file alone (that one holds garbage of its own), 62-149 MB in three runs
    // beside another file's tests (the reducer did not always run within the 16 s); one reading 6 s
    // in, 62-184 MB. The bound was 150 MB while the database ran on the API's thread (112 MB in one CI
    // run, one reading 6 s in): its thread now has a heap of its own, whose garbage is in RSS too.
    expect(rssAdded).toBeLessThan(200);
    expect(Math.max(...times)).toBeLessThan(1000);
    expect(woken).toBe(STREAMS / USERS);
  }, 180_000);
});
