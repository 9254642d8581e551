// Dependencies restart, the service stays up: a service in the distributed mode (all roles in one
// process) on a Postgres, a Redis, a MinIO and a Temporal dev server of this suite's own, each stopped
// and started again while captures, API reads and MCP tool calls run. The process lives through every
// fault (same PID), nothing answers 500, what needed the missing server answers 503 with Retry-After
// (an MCP tool call: a tool error saying so, or the endpoint's 503), traffic is 2xx again within 5 s
// of its return, and every capture answered 2xx is stored exactly once.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '../../db/connect.ts';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';
import { runScript, startApp, tempDir, type AppProcess } from '../support/processes.ts';
import {
  startFreezingProxy,
  startMinio,
  startPostgres,
  startRedis,
  startTemporal,
  type ChildServer,
  type PostgresServer,
} from '../support/servers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  door: 'rest' | 'capture' | 'mcp';
  at: number;
  status: number;
  retryAfter: string | undefined;
  ms: number;
}

function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false, timeout: 30_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body }),
        );
      },
    );
    req.on('error', () => resolve({ status: 0, retryAfter: undefined, body: '' })); // the process is gone, or hung up
    req.on('timeout', () => req.destroy());
    req.end(options.body);
  });
}

describe('dependencies restart, the service stays up', () => {
  let pg: PostgresServer;
  let redis: ChildServer & { url: string };
  let temporal: ChildServer;
  let minio: ChildServer & { env: Record<string, string> };
  let app: AppProcess;
  let mcpToken: string;
  let refresh: { token: string; clientId: string };
  let site: LoadTarget;
  let key: string;
  let webhook: { webhook_id: string; webhook_url: string };
  const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
    send(`${app.baseUrl}${path}`, {
      method: init.method,
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  beforeAll(async () => {
    // One at a time, each kept as it starts: a failed start leaves nothing running that afterAll cannot stop.
    pg = await startPostgres();
    redis = await startRedis();
    temporal = await startTemporal();
    minio = await startMinio();
    site = await startLoadTarget();
    app = await startApp({
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      TEMPORAL_ADDRESS: temporal.address,
      ...minio.env,
      PAYLOAD_KEY: randomBytes(32).toString('base64'),
      DATA_DIR: await tempDir('faults'),
      NETWORK_ALLOW: '127.0.0.1/32',
    });
    const created = await runScript(
      'scripts/admin.ts',
      ['create-key', '--email', 'faults@example.test', '--plan', 'enterprise'],
      app.env,
    );
    key = JSON.parse(created.stdout).api_key;
    // The same account signed in as an MCP client would be (OAuth through the service's own forms).
    await runScript(
      'scripts/admin.ts',
      ['create-user', '--email', 'faults@example.test', '--password', 'correct horse battery staple'],
      app.env,
    );
    const signedIn = await runScript(
      'scripts/mcp-token.ts',
      ['--url', `${app.baseUrl}/mcp`, '--email', 'faults@example.test', '--password', 'correct horse battery staple'],
      app.env,
    );
    const tokens = JSON.parse(signedIn.stdout);
    mcpToken = tokens.access_token;
    refresh = { token: tokens.refresh_token, clientId: tokens.client_id };
    webhook = JSON.parse(
      (
        await api('/api/v1/network/my-webhook-create', {
          method: 'POST',
          body: { retention: { max_requests: 10_000 } },
        })
      ).body,
    );
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
    await Promise.all([pg?.close(), redis?.close(), temporal?.close(), minio?.close(), site?.close()]);
  });

  /** Every capture answered 2xx, over all the faults (one webhook takes them all). */
  const accepted: number[] = [];
  let next = 0;

  /** Captures (each with its own number) and API reads until stopped; every answer kept. */
  function traffic() {
    const answers: Answer[] = [];
    let running = true;
    const loop = async (
      door: Answer['door'],
      one: () => Promise<{ status: number; retryAfter: string | undefined }>,
      gapMs: number,
    ) => {
      while (running) {
        const began = Date.now();
        const r = await one();
        answers.push({ door, at: Date.now(), status: r.status, retryAfter: r.retryAfter, ms: Date.now() - began });
        await sleep(gapMs);
      }
    };
    const capture = async () => {
      const n = next++;
      const r = await send(`${webhook.webhook_url}/fault`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'x-seq': String(n) },
        body: `capture ${n}`,
      });
      if (r.status === 200) accepted.push(n);
      return r;
    };
    const loops = [
      loop('capture', capture, 40),
      loop('capture', capture, 40),
      loop('rest', () => api('/api/v1/network/my-webhooks'), 100),
      loop('mcp', () => mcp('webhook_list', {}), 200),
    ];
    return {
      answers,
      stop: async () => {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  /**
   * One MCP tool call, its answer as a status: 503 when the endpoint answered 503 or the tool said the
   * dependency is unavailable (the client may retry), 500 for a failure the service calls its own.
   */
  async function mcp(
    tool: string,
    args: Record<string, unknown>,
  ): Promise<{ status: number; retryAfter: string | undefined }> {
    const r = await send(`${app.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${mcpToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
    });
    if (r.status !== 200) return r;
    const result = JSON.parse(r.body).result as { isError?: boolean; content: Array<{ text: string }> };
    if (!result.isError) return r;
    return {
      status: /is unavailable: try again in a few seconds/.test(result.content[0]!.text) ? 503 : 500,
      retryAfter: 'in the text',
    };
  }

  /** Runs traffic through `fault` (which returns when the dependency is back) and checks what the doors answered. */
  async function through(name: string, fault: () => Promise<{ down: number; up: number }>) {
    const t = traffic();
    await sleep(1500);
    const { down, up } = await fault();
    await sleep(6000);
    await t.stop();
    const count = (from: number, to: number, door: Answer['door']) => {
      const byStatus: Record<number, number> = {};
      for (const a of t.answers)
        if (a.door === door && a.at >= from && a.at < to) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
      return byStatus;
    };
    const firstOk = (door: Answer['door']) => t.answers.find((a) => a.door === door && a.at > up && a.status < 300)?.at;
    const doors = ['rest', 'capture', 'mcp'] as const;
    const report = {
      fault: name,
      outage_s: (up - down) / 1000,
      during: Object.fromEntries(doors.map((d) => [d, count(down, up, d)])),
      first_2xx_after_return_ms: Object.fromEntries(doors.map((d) => [d, (firstOk(d) ?? NaN) - up])) as Record<
        (typeof doors)[number],
        number
      >,
    };
    console.log(JSON.stringify(report));

    expect(process.kill(app.pid, 0)).toBe(true); // the same process, alive
    // ...and no error went unhandled (the process would go on after one: lib/unhandled.ts).
    expect(app.output()).not.toMatch(/nobody handled/);
    expect(
      t.answers.filter((a) => a.status === 0 || (a.status >= 500 && a.status !== 503)),
      JSON.stringify(t.answers.filter((a) => a.status !== 200 && a.status !== 503).slice(0, 5)),
    ).toEqual([]);
    for (const a of t.answers.filter((x) => x.status === 503)) expect(a.retryAfter).toBeTruthy();
    for (const door of doors) expect(report.first_2xx_after_return_ms[door], door).toBeLessThan(5000);
    return { ...t, report };
  }

  /** Every capture answered 2xx is stored, once. */
  async function storedOnce() {
    const seqs: number[] = [];
    let cursor = '';
    for (;;) {
      const after = cursor ? `&cursor=${cursor}` : '';
      const page = JSON.parse(
        (await api(`/api/v1/network/my-webhook-requests?webhook_id=${webhook.webhook_id}&limit=500${after}`)).body,
      );
      seqs.push(...page.data.requests.map((r: { headers: Record<string, string> }) => Number(r.headers['x-seq'])));
      if (!page.data.next_cursor) break;
      cursor = page.data.next_cursor;
    }
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(new Set(seqs)).toEqual(new Set(accepted));
  }

  it('a connection killed while checked out is no unhandled error', async () => {
    const handle = await openDatabase({ databaseUrl: pg.url, dataDir: '', migrate: false });
    const unhandled: unknown[] = [];
    const seen = (err: unknown) => unhandled.push(err);
    process.on('uncaughtException', seen);
    try {
      await handle.db.connection().execute(async (conn) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn);
        // from another connection of the pool
        await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(handle.db);
        await sleep(300); // the checked-out client hears of it now, idle
        await expect(sql`select 1`.execute(conn)).rejects.toMatchObject({ code: 'dependency_unavailable' });
      });
      // a new connection
      expect((await sql<{ one: number }>`select 1 as one`.execute(handle.db)).rows).toEqual([{ one: 1 }]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('uncaughtException', seen);
      await handle.close();
    }
  });

  it(
    'a database that stops answering without a reset is an outage after the statement timeout, and its ' +
      'connection is not reused',
    async () => {
      const proxy = await startFreezingProxy(Number(new URL(pg.url).port));
      const url = new URL(pg.url);
      url.port = String(proxy.port);
      const handle = await openDatabase({ databaseUrl: url.href, dataDir: '', migrate: false, queryTimeoutMs: 1000 });
      try {
        expect((await sql<{ one: number }>`select 1 as one`.execute(handle.db)).rows).toEqual([{ one: 1 }]);
        proxy.freeze();
        const began = Date.now();
        await expect(sql`select 1`.execute(handle.db)).rejects.toMatchObject({ code: 'dependency_unavailable' });
        const waited = Date.now() - began;
        expect(waited).toBeGreaterThanOrEqual(900);
        expect(waited).toBeLessThan(3000);
        proxy.thaw();
        // The connection whose statement timed out was dropped: the next statement gets its own answer.
        expect((await sql<{ two: number }>`select 2 as two`.execute(handle.db)).rows).toEqual([{ two: 2 }]);
        expect(proxy.connections()).toBe(2);
      } finally {
        await handle.close();
        await proxy.close();
      }
    },
  );

  /** A dashboard session of the suite's account, signed in through the sign-in form: its cookies. */
  async function dashboardSession(): Promise<string> {
    const form = await fetch(`${app.baseUrl}/dashboard/sign-in`);
    const jar = form.headers.getSetCookie().map((c) => c.split(';')[0]!);
    const hidden = Object.fromEntries(
      [...(await form.text()).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
        m[1]!,
        m[2]!,
      ]),
    );
    const signedIn = await fetch(`${app.baseUrl}/dashboard/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...hidden, email: 'faults@example.test', password: 'correct horse battery staple' }),
    });
    expect(signedIn.status).toBe(303);
    return [...jar, ...signedIn.headers.getSetCookie().map((c) => c.split(';')[0]!)].join('; ');
  }

  /** An MCP client refreshing its access token (the OAuth token endpoint reads the database). */
  const refreshToken = () =>
    send(`${app.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refresh.token,
        client_id: refresh.clientId,
      }).toString(),
    });

  it.each(['fast', 'immediate'] as const)(
    'Postgres stopped (%s) and started 3 s later',
    { timeout: 90_000 },
    async (mode) => {
      let refreshed: Awaited<ReturnType<typeof refreshToken>> | undefined;
      let dashboard: Awaited<ReturnType<typeof send>> | undefined;
      const cookie = await dashboardSession();
      const { answers } = await through(`postgres ${mode}`, async () => {
        await pg.stop(mode);
        const down = Date.now();
        refreshed = await refreshToken();
        dashboard = await send(`${app.baseUrl}/dashboard/webhooks`, {
          headers: { cookie, accept: 'text/html,application/xhtml+xml' },
        });
        await sleep(Math.max(0, 3000 - (Date.now() - down)));
        await pg.start();
        return { down, up: Date.now() };
      });
      for (const door of ['capture', 'rest', 'mcp'])
        expect(
          answers.some((a) => a.door === door && a.status === 503),
          door,
        ).toBe(true);
      // The token endpoint too: OAuth's temporarily_unavailable with Retry-After, not 500 server_error...
      expect(refreshed!.status, refreshed!.body).toBe(503);
      expect(refreshed!.retryAfter).toBeTruthy();
      expect(JSON.parse(refreshed!.body)).toMatchObject({ error: 'temporarily_unavailable' });
      // The dashboard: a page saying so, with a link to try again.
      expect(dashboard!.status).toBe(503);
      expect(dashboard!.body).toMatch(
        new RegExp(
          [
            '<h1>Service Unavailable<\\/h1><p>The database \\(Postgres\\) is unavailable: try again in a few second',
            's<\\/p><p><a href="\\/dashboard\\/webhooks">Try again<\\/a>',
          ].join(''),
        ),
      );
      // ...and the refresh token still works once the database is back (it was not used up).
      const after = await refreshToken();
      expect(after.status, after.body).toBe(200);
      refresh.token = JSON.parse(after.body).refresh_token ?? refresh.token;
      await storedOnce();
    },
  );

  it('Redis stopped and started 3 s later', { timeout: 90_000 }, async () => {
    const { answers } = await through('redis', async () => {
      await redis.stop();
      const down = Date.now();
      await sleep(3000);
      await redis.start();
      return { down, up: Date.now() };
    });
    expect(answers.some((a) => a.door === 'rest' && a.status === 503)).toBe(true);
    await storedOnce();
  });

  it('the blob store stopped and started 3 s later: video uploads answer 503 meanwhile, the same link works after', {
    timeout: 120_000,
  }, async () => {
    const job = JSON.parse(
      (
        await api('/api/v1/video/watermark-jobs', {
          method: 'POST',
          body: { service: 'region', regions: [{ x: 0, y: 0, width: 10, height: 10 }] },
        })
      ).body,
    );
    // A file that starts as an MP4 does (an ftyp box): enough for the upload to reach the store.
    const mp4 = Buffer.concat([
      Buffer.from([0, 0, 0, 0x18]),
      Buffer.from('ftypisom'),
      Buffer.alloc(12),
      randomBytes(4096),
    ]);
    const boundary = 'faults-boundary';
    const upload = () =>
      send(job.upload_url, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="video"; ` +
              `filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
          ),
          mp4,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      });
    const uploads: Array<{ at: number; status: number; retryAfter: string | undefined; body: string }> = [];
    let ready: { status: number; body: string } | undefined;
    const { answers } = await through('blob store', async () => {
      await minio.stop();
      const down = Date.now();
      uploads.push({ at: Date.now(), ...(await upload()) });
      ready = await send(`${app.baseUrl}/readyz`, {});
      await sleep(Math.max(0, 3000 - (Date.now() - down)));
      await minio.start();
      return { down, up: Date.now() };
    });
    // Only what needs the blob store was out: captures, reads and MCP went on.
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(uploads[0]!.status, uploads[0]!.body).toBe(503);
    expect(uploads[0]!.retryAfter).toBeTruthy();
    expect(JSON.parse(uploads[0]!.body)).toMatchObject({ success: false, error_code: 'dependency_unavailable' });
    expect(ready!.status).toBe(503);
    expect(JSON.parse(ready!.body).checks).toMatchObject({
      blobs: 'error',
      database: 'ok',
      store: 'ok',
      temporal: 'ok',
    });
    const after = await upload();
    console.log(
      JSON.stringify({ fault: 'blob store', upload_during: uploads.map((u) => u.status), upload_after: after.status }),
    );
    expect(after.status, after.body).toBe(202);
  });

  it('Temporal restarted mid-test: status reads answer (200) within 6 s meanwhile, and the test completes', {
    timeout: 180_000,
  }, async () => {
    const started = JSON.parse(
      (
        await api('/api/v1/load-testing/start', {
          method: 'POST',
          body: {
            targetUrl: `${site.url}/faults`,
            httpMethod: 'GET',
            concurrentUsers: 2,
            testDuration: 30,
            rampUpTime: 0,
            requestsPerSecond: 20,
          },
        })
      ).body,
    );
    const id = started.test_id as string;
    for (let i = 0; i < 100 && site.count('/faults') < 20; i++) await sleep(200);
    await temporal.stop();
    try {
      await duringTemporalOutage(id);
    } finally {
      await temporal.start();
    }
    expect(process.kill(app.pid, 0)).toBe(true);
    expect(app.output()).not.toMatch(/nobody handled/);
    let status: { status?: string } = {};
    for (let i = 0; i < 200 && !['completed', 'stopped', 'failed'].includes(status.status ?? ''); i++) {
      await sleep(500);
      const r = await api(`/api/v1/load-testing/status/${id}`);
      if (r.status === 200) status = JSON.parse(r.body);
    }
    expect(status.status).toBe('completed');
  });

  /**
   * Status reads of test `id` for 8 s, ten a second (as a dashboard polls; a read answered in a few ms
   * and sent again at once would reach the plan's rate limit), and a job start, while the Temporal
   * server is away.
   */
  async function duringTemporalOutage(id: string) {
    const reads: Array<{ status: number; ms: number }> = [];
    const until = Date.now() + 8000;
    while (Date.now() < until) {
      const began = Date.now();
      const r = await api(`/api/v1/load-testing/status/${id}`);
      reads.push({ status: r.status, ms: Date.now() - began });
      if (r.status === 503) expect(JSON.parse(r.body)).toMatchObject({ error_code: 'dependency_unavailable' });
      await sleep(Math.max(0, 100 - (Date.now() - began)));
    }
    // A job start needs the server itself: 503 naming it, not 500 (once the SDK's retries end).
    const began = Date.now();
    const refused = await api('/api/v1/load-testing/start', {
      method: 'POST',
      body: { targetUrl: `${site.url}/faults-later`, httpMethod: 'GET', concurrentUsers: 1, testDuration: 10 },
    });
    console.log(
      JSON.stringify({
        fault: 'temporal',
        status_reads: reads,
        start: { status: refused.status, ms: Date.now() - began },
      }),
    );
    // A running test's status is a read of the database: Temporal away changes nothing in it.
    expect(reads.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(Math.max(...reads.map((r) => r.ms))).toBeLessThan(6500);
    expect(refused.status, refused.body).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ error_code: 'dependency_unavailable' });
    expect(refused.retryAfter).toBeTruthy();
  }
});
