// Scenarios against a loopback shop: each user logs in (capturing a token and an order id from the
// JSON answer) and then reads that order with the token; the shop answers 401 to any other token.
// Results by step; a capture that finds nothing starts the user over; validation names the fault.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, targets } from '../support/client.ts';
import { loadTestSuite } from '../support/load-tests.ts';

describe.each(targets())('load test steps ($name)', (target) => {
  const { start, results, waitFor } = loadTestSuite(target);
  let shop: http.Server;
  let url: string;
  const issued = new Map<string, string>(); // token -> order id
  const seen = { logins: 0, orders: 0, refused: 0 };
  beforeAll(async () => {
    shop = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (
          req.method === 'POST' &&
          req.url === '/shop/login' &&
          Buffer.concat(chunks).toString() === '{"user":"load"}'
        ) {
          seen.logins++;
          const token = `t-${seen.logins}`;
          const id = `o${seen.logins}`;
          issued.set(token, id);
          return res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ data: { token, order: { id } } }));
        }
        const order = /^\/shop\/orders\/([a-z0-9]+)$/.exec(req.url ?? '');
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (req.method === 'GET' && order && token && issued.get(token) === order[1]) {
          seen.orders++;
          return res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        }
        seen.refused++;
        res.writeHead(401).end();
      });
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    shop.closeAllConnections();
    await new Promise((r) => shop.close(r));
  });
  /** A 10 s scenario of `steps` on the shop for `users` users, no ramp-up, unpaced (the closed model). */
  const shopTest = (users: number, steps: unknown[]) => ({
    targetUrl: `${url}/shop/login`,
    httpMethod: 'GET',
    concurrentUsers: users,
    testDuration: 10,
    rampUpTime: 0,
    steps,
  });

  it('passes a captured value from one step to the next, and breaks the results down by step', {
    timeout: 60_000,
  }, async () => {
    const steps = [
      {
        name: 'login',
        method: 'POST',
        path: '/shop/login',
        body: '{"user":"load"}',
        capture: { token: '/data/token', order: '/data/order/id' },
      },
      { name: 'read order', path: `${url}/shop/orders/{{order}}`, headers: { Authorization: 'Bearer {{token}}' } },
    ];
    const started = await start(shopTest(3, steps));
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.config.steps).toEqual([
      {
        name: 'login',
        method: 'POST',
        path: '/shop/login',
        header_names: [],
        body_bytes: 15,
        capture: { token: '/data/token', order: '/data/order/id' },
      },
      {
        name: 'read order',
        method: 'GET',
        path: `${url}/shop/orders/{{order}}`,
        header_names: ['Authorization'],
        body_bytes: 0,
        capture: {},
      },
    ]);
    const id = started.body.test_id;
    await waitFor(id, (b) => b.status !== 'pending' && b.status !== 'running', 40_000);
    const r = (await results(id)).body.results;
    const [login, read] = r.steps;
    console.log(
      `steps: login ${login.requests} (p95 ${login.p95_response_time} ms), read order ${read.requests} ` +
        `(p95 ${read.p95_response_time} ms); the shop refused ${seen.refused}`,
    );
    expect(seen.refused).toBe(0);
    expect(r.steps.map((s: { step: number; name: string }) => [s.step, s.name])).toEqual([
      [1, 'login'],
      [2, 'read order'],
    ]);
    // Every answer of each step a 200, every capture found.
    for (const step of r.steps) {
      expect(step).toMatchObject({ failed_requests: 0, capture_failures: 0, status_codes: { '200': step.requests } });
    }
    expect(login.requests).toBe(seen.logins);
    expect(read.requests).toBe(seen.orders);
    // Each user alternates: at the end each is at most one login ahead.
    expect(login.requests - read.requests).toBeGreaterThanOrEqual(0);
    expect(login.requests - read.requests).toBeLessThanOrEqual(3);
    expect(r.total_requests).toBe(login.requests + read.requests);
    expect(login.requests).toBeGreaterThan(100);
  });

  it('starts a user over when a capture finds nothing, and refuses scenarios that cannot run', {
    timeout: 60_000,
  }, async () => {
    const before = seen.orders;
    const started = await start(
      shopTest(1, [
        { method: 'POST', path: '/shop/login', body: '{"user":"load"}', capture: { id: '/data/nothing' } },
        { path: '/shop/orders/{{id}}' },
      ]),
    );
    expect(started.status).toBe(202);
    await waitFor(started.body.test_id, (b) => b.status !== 'pending' && b.status !== 'running', 40_000);
    const [first, second] = (await results(started.body.test_id)).body.results.steps;
    expect(first.capture_failures).toBe(first.requests);
    expect(first.failed_requests).toBe(first.requests);
    expect(second.requests).toBe(0);
    expect(seen.orders).toBe(before);

    const base = { targetUrl: `${url}/shop/login`, httpMethod: 'GET', concurrentUsers: 1, testDuration: 10 };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ steps: [{ path: '/a/{{token}}' }] }, /steps\.0: uses \{\{token\}\}, which no earlier step captures/],
      [{ steps: [{ path: 'http://127.0.0.2:1/x' }] }, /steps\.0\.path: must be on the target's origin/],
      [{ steps: [{ path: 'orders' }] }, /steps\.0\.path: must be a path/],
      [{ steps: [{ method: 'GET', body: 'x' }] }, /steps\.0\.body: is sent only with POST, PUT and PATCH/],
      [{ steps: [{ capture: { id: 'data/id' } }] }, /steps\.0\.capture\.id: must be JSON pointers/],
      [{ steps: [{ path: '/x' }], requestsPerSecond: 10 }, /steps: run in the closed model/],
      [{ steps: [{ path: '/x', wait: 1 }] }, /steps\.0/],
      [{ steps: [] }, /steps: must hold 1 to 10 steps/],
      [{ steps: [{ path: '/x', capture: null }] }, /steps\.0\.capture/],
      [{ steps: [{ path: '/x', headers: 'x' }, { path: '/{{a}}' }] }, /steps\.0\.headers/],
      [{ steps: 'x' }, /steps: must be a list of steps/],
    ];
    for (const [extra, message] of cases) {
      const refused = await start({ ...base, ...extra });
      expectErrorShape(refused, 400);
      expect(refused.body.message, JSON.stringify(extra)).toMatch(message);
    }
  });
});
