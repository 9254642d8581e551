// Every door is bounded by the user's plan (lib/plans.ts): live streams at once, webhooks owned, load
// tests at once and their size, dashboard actions counted with API calls; and slow or greedy clients
// cannot hold the port.
import { randomInt } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormBrowser, type Page } from '../../scripts/oauth-forms.ts';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';
import { admin, call, expectErrorShape, freshWindow, newAccount, targets } from '../support/client.ts';
import { newUser, PASSWORD } from '../support/mcp.ts';
import { startOwnApi, type AppProcess } from '../support/processes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(targets().map((t) => [t.name, t] as const))('plan bounds (%s)', (_name, target) => {
  let site: LoadTarget;
  beforeAll(async () => {
    site = await startLoadTarget();
  });
  afterAll(() => site.close());

  /** An open event stream; `close()` hangs up. */
  async function openStream(key: string, path: string) {
    const controller = new AbortController();
    const res = await fetch(`${target.baseUrl}${path}`, {
      headers: { 'X-API-Key': key, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    return { res, close: () => controller.abort() };
  }

  it('refuses live streams past the plan, names the limit, and frees a slot when a stream ends', async () => {
    const { key } = await newAccount(target, 'free'); // 2 streams at once
    const webhookId: string = (await call(target, 'POST', '/api/v1/network/my-webhook-create', { key })).body
      .webhook_id;
    const path = `/api/v1/network/my-webhook-requests/events?webhook_id=${webhookId}`;
    const a = await openStream(key, path);
    const b = await openStream(key, path);
    expect([a.res.status, b.res.status]).toEqual([200, 200]);
    const third = await call(target, 'GET', path, { key });
    expectErrorShape(third, 429);
    expect(third.body.message).toBe('At most 2 live streams at once on the free plan: close one of yours first');
    expect(third.headers.get('retry-after')).toBe('60');
    a.close();
    let again: Awaited<ReturnType<typeof openStream>> | undefined;
    for (let i = 0; i < 20 && again?.res.status !== 200; i++) {
      await sleep(250);
      again?.close();
      again = await openStream(key, path);
    }
    expect(again!.res.status).toBe(200);
    b.close();
    again!.close();
  });

  it(
    "refuses a capture flood past the webhook owner's " + 'captures per minute, and stores exactly what it admitted',
    async () => {
      const { key } = await newAccount(target, 'free'); // 60 captures per minute per webhook
      const webhookId: string = (await call(target, 'POST', '/api/v1/network/my-webhook-create', { key })).body
        .webhook_id;
      await freshWindow(15);
      const replies = await Promise.all(
        Array.from({ length: 90 }, (_, i) =>
          fetch(`${target.baseUrl}/webhook/${webhookId}`, { method: 'POST', body: `flood ${i}` }).then(async (r) => ({
            status: r.status,
            retry: r.headers.get('retry-after'),
            body: await r.json(),
          })),
        ),
      );
      const refused = replies.filter((r) => r.status === 429);
      expect(replies.filter((r) => r.status === 200)).toHaveLength(60);
      expect(refused).toHaveLength(30);
      expect(refused[0]!.body.message).toMatch(
        new RegExp(
          [
            '^This webhook took its 60 captures of this minute \\(the free plan of its owner\\); nothing was stored',
            ': retry after \\d+ s$',
          ].join(''),
        ),
      );
      expect(Number(refused[0]!.retry)).toBeGreaterThan(0);
      const stored = await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${webhookId}`, { key });
      expect(stored.body.data.total).toBe(60);
    },
  );

  it("keeps at most the plan's bytes of captured bodies per user: the oldest go", async () => {
    const { key } = await newAccount(target, 'free'); // 10 MiB of bodies
    const hooks: string[] = [];
    for (let i = 0; i < 2; i++)
      hooks.push((await call(target, 'POST', '/api/v1/network/my-webhook-create', { key })).body.webhook_id);
    // 14 bodies of 1,000,000 bytes over two webhooks, one after the other: the newest 10 fit in 10 MiB.
    for (let i = 0; i < 14; i++) {
      const res = await fetch(`${target.baseUrl}/webhook/${hooks[i % 2]}`, {
        method: 'POST',
        body: `${String(i).padStart(2, '0')}${'x'.repeat(999_998)}`,
      });
      expect(res.status).toBe(200);
    }
    // The bound is checked within 10 s of a write (api/services/webhooks/captures.ts); a free account has 10 requests a
    // minute to look.
    let kept: string[] = [];
    for (let i = 0; i < 2; i++) {
      await sleep(11_000);
      const lists = await Promise.all(
        hooks.map((id) => call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${id}`, { key })),
      );
      kept = lists.flatMap((l) => l.body.data.requests.map((r: { body: string }) => r.body.slice(0, 2))).sort();
      if (kept.length <= 10) break;
    }
    expect(kept).toEqual(['04', '05', '06', '07', '08', '09', '10', '11', '12', '13']);
  });

  it('stops an address that guesses webhook ids, and only that address', async () => {
    // Each guess leaves from an address of its own in 127/8, which the service sees as the client.
    const guesser = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
    const post = (path: string, from: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(`${target.baseUrl}${path}`, { method: 'POST', localAddress: from }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject).end('guess');
      });
    await freshWindow(15);
    const statuses: number[] = [];
    for (let i = 0; i < 125; i++) statuses.push(await post(`/webhook/guess${randomInt(1e9)}`, guesser));
    expect(statuses.slice(0, 120).every((s) => s === 404)).toBe(true);
    expect(statuses.slice(120)).toEqual([429, 429, 429, 429, 429]);
    // Another address still gets its 404, and the guesser still reaches a webhook the service knows.
    expect(await post(`/webhook/guess${randomInt(1e9)}`, '127.0.0.1')).toBe(404);
    const { key } = await newAccount(target, 'free');
    const webhookId: string = (await call(target, 'POST', '/api/v1/network/my-webhook-create', { key })).body
      .webhook_id;
    expect(await post(`/webhook/${webhookId}`, '127.0.0.1')).toBe(200); // now known to this process
    expect(await post(`/webhook/${webhookId}`, guesser)).toBe(200);
  });

  it('lets a user own as many webhooks as the plan allows, and no more', async () => {
    const { key } = await newAccount(target, 'free'); // 5 webhooks
    for (let i = 0; i < 5; i++)
      expect((await call(target, 'POST', '/api/v1/network/my-webhook-create', { key })).status).toBe(201);
    const sixth = await call(target, 'POST', '/api/v1/network/my-webhook-create', { key });
    expectErrorShape(sixth, 403);
    expect(sixth.body.message).toBe('You own 5 webhooks, the most the free plan allows: delete one first');
    expect((await call(target, 'GET', '/api/v1/network/my-webhooks', { key })).body.data.total).toBe(5);
  });

  it("bounds a load test's size and the tests running at once by the plan", async () => {
    const { key } = await newAccount(target, 'free'); // 1 test at once, 50 users, 300 s
    const start = (body: Record<string, unknown>) =>
      call(target, 'POST', '/api/v1/load-testing/start', {
        key,
        json: { targetUrl: `${site.url}/bounded`, httpMethod: 'GET', rampUpTime: 0, requestsPerSecond: 1, ...body },
      });
    const tooMany = await start({ concurrentUsers: 51, testDuration: 10 });
    expectErrorShape(tooMany, 403);
    expect(tooMany.body.message).toBe('concurrentUsers: at most 50 on the free plan');
    const tooLong = await start({ concurrentUsers: 1, testDuration: 301 });
    expectErrorShape(tooLong, 403);
    expect(tooLong.body.message).toBe('testDuration: at most 300 seconds on the free plan');
    const first = await start({ concurrentUsers: 50, testDuration: 300 });
    expect(first.status).toBe(202);
    const second = await start({ concurrentUsers: 1, testDuration: 10 });
    expectErrorShape(second, 429);
    expect(second.body.message).toBe(
      'At most 1 load test at once on the free plan: wait for one of yours to end, or stop it',
    );
    expect(second.headers.get('retry-after')).toBeTruthy();
    // Stopped, it no longer counts.
    for (let i = 0; i < 50; i++) {
      if ((await call(target, 'POST', `/api/v1/load-testing/stop/${first.body.test_id}`, { key })).status === 200)
        break;
      await sleep(200);
    }
    expect((await start({ concurrentUsers: 1, testDuration: 10 })).status).toBe(202);
  });

  it("counts dashboard actions against the plan's requests: nothing is created past the limit", async () => {
    const user = await newUser(target, 'free');
    const { stdout } = await admin(target, ['create-key', '--email', user.email, '--plan', 'free']);
    const key: string = JSON.parse(stdout).api_key;
    const browser = new FormBrowser();
    let page = (await browser.get(`${target.baseUrl}/dashboard/webhooks`)) as Page;
    page = (await browser.submit(page, /\/dashboard\/sign-in/, { email: user.email, password: PASSWORD })) as Page;
    expect(page.url).toBe(`${target.baseUrl}/dashboard/webhooks`);
    // Spend the minute with the API key, far enough from the minute's end that the post lands in it.
    for (let attempt = 0; attempt < 3; attempt++) {
      let last = await call(target, 'GET', '/api/v1/network/my-webhooks', { key });
      while (last.status !== 429) last = await call(target, 'GET', '/api/v1/network/my-webhooks', { key });
      if (Number(last.headers.get('ratelimit-reset')) >= 5) break;
      await sleep(Number(last.headers.get('ratelimit-reset')) * 1000 + 200);
    }
    const refused = (await browser.submit(page, /^\/dashboard\/webhooks$/, {})) as Page;
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('Rate limit of the free plan reached (10 requests per minute); nothing was done.');
    const list = (await browser.get(`${target.baseUrl}/dashboard/webhooks`)) as Page;
    expect(list.html).toContain('No webhooks yet.');
  });

  it('cuts off a client that sends its headers a byte at a time', async () => {
    const socket = net.connect(Number(new URL(target.baseUrl).port), '127.0.0.1');
    socket.on('error', () => {}); // the server resets it: that is the point
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
    const began = Date.now();
    socket.write('POST /webhook/slow-sender HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => socket.writable && socket.write('X'), 1000);
    const at = await Promise.race([closed, sleep(25_000).then(() => null)]);
    clearInterval(drip);
    socket.destroy();
    // HEADERS_TIMEOUT_MS is 10 s by default; Node checks every second.
    expect(at, 'the server kept the slow sender past 25 s').not.toBeNull();
    expect(at! - began).toBeGreaterThanOrEqual(9_000);
  });
});

describe('connections per client address', () => {
  const target = targets()[0]!;
  let app: AppProcess;
  beforeAll(async () => {
    // An API process of its own (on the suite's Temporal server), so holding connections blocks no other test.
    app = await startOwnApi(target.temporalAddress, 'conn-limit', { MAX_CONNECTIONS_PER_CLIENT: '5' });
    // The readiness checks' keep-alive connection closes after the server's 5 s idle timeout.
    await sleep(6000);
  });
  afterAll(() => app.stop());

  /** A connection to the app; `answer` is the status line of a GET /healthz on it, or 'closed'. */
  const connect = async () => {
    const socket = net.connect(Number(new URL(app.baseUrl).port), '127.0.0.1');
    socket.on('error', () => {}); // a refused connection is reset: that shows as 'closed' below
    let got = '';
    const answer = new Promise<string>((resolve) => {
      socket.on('data', (d) => {
        got += d;
        if (got.includes('\r\n\r\n')) resolve(got.split('\r\n')[0]!);
      });
      socket.once('close', () => resolve(got ? got.split('\r\n')[0]! : 'closed'));
    });
    await new Promise((resolve) => socket.once('connect', resolve).once('close', resolve));
    if (!socket.destroyed) socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    return { socket, answer };
  };

  it('holds at most MAX_CONNECTIONS_PER_CLIENT open for one address, and takes more when one closes', async () => {
    const held = await Promise.all(Array.from({ length: 5 }, connect));
    for (const c of held) expect(await c.answer).toBe('HTTP/1.1 200 OK');
    expect(await (await connect()).answer).toBe('closed');
    held[0]!.socket.destroy();
    await sleep(200);
    const next = await connect();
    expect(await next.answer).toBe('HTTP/1.1 200 OK');
    for (const c of [...held, next]) c.socket.destroy();
  });
});
