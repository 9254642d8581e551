// Load tests over HTTP/2 through the API, against loopback servers started here that count what they
// receive by path and protocol: an h2 server over TLS, an h2c server, and a TLS server offering only
// http/1.1. Each test has its own path, so they run at once and each count is its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startH2Target, type H2Target } from '../fixtures/h2-target.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { newAccount, targets } from '../support/client.ts';
import { loadTestCalls } from '../support/load-tests.ts';

describe.each(targets())('load tests over HTTP/2 ($name)', (target) => {
  let site: H2Target;
  /** The server of the test of users sharing connections alone, so that its connections are its own. */
  let shares: H2Target;
  const account = newAccount(target);
  const { start, results, waitFor } = loadTestCalls(target, account);
  beforeAll(async () => {
    [site, shares] = await Promise.all([startH2Target(), startH2Target()]);
  });
  afterAll(() => Promise.all([site.close(), shares.close()]));

  /** Starts a 10-second test over HTTP/2 and answers its results once it has ended. */
  const runTest = async (body: Record<string, unknown>) => {
    const started = await start({
      httpMethod: 'GET',
      testDuration: 10,
      rampUpTime: 0,
      insecureTls: true,
      httpVersion: '2',
      ...body,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.test_id as string;
    await waitFor(id, (b) => b.status !== 'pending' && b.status !== 'running', 60_000);
    const answer = (await results(id)).body;
    expect(answer.status, JSON.stringify(answer)).toBe('completed');
    return { config: answer.config, r: answer.results };
  };

  it('runs each model over h2 and h2c, every request answered over HTTP/2 and counted as the server counted ' +
    'it; users share connections; resets, a server without h2, thresholds and phases, a scenario with a ' +
    'capture', {
    timeout: 120_000,
  }, async () => {
    // The CLI's flags, at the same time: `netops load run --http-version 2 --streams-per-connection 2`.
    const cli = (async () =>
      runCli(
        [
          ...[
            'load',
            'run',
            '--url',
            `${site.h2cUrl}/delay/5/cli-h2c`,
            '--users',
            '4',
            '--duration',
            '10s',
            '--ramp-up',
            '0',
          ],
          ...['--http-version', '2', '--streams-per-connection', '2'],
        ],
        await cliEnv(target.baseUrl, (await account).key, { NO_COLOR: '1' }),
      ))();
    const [closedH2, closedH2c, openH2, openH2c, shared, reset, noH2, scenario] = await Promise.all([
      runTest({ targetUrl: `${site.h2Url}/delay/5/closed-h2`, concurrentUsers: 3 }),
      runTest({ targetUrl: `${site.h2cUrl}/delay/5/closed-h2c`, concurrentUsers: 3 }),
      runTest({ targetUrl: `${site.h2Url}/open-h2`, concurrentUsers: 4, requestsPerSecond: 50 }),
      runTest({
        targetUrl: `${site.h2cUrl}/open-h2c`,
        concurrentUsers: 4,
        requestsPerSecond: 50,
        http2: { streamsPerConnection: 4 },
      }),
      runTest({
        targetUrl: `${shares.h2cUrl}/delay/100`,
        concurrentUsers: 50,
        http2: { streamsPerConnection: 10 },
        thresholds: ['p95 < 5000', 'ttfb.p50 >= 100', 'connect.max > 0'],
      }),
      runTest({ targetUrl: `${site.h2Url}/reset/2`, concurrentUsers: 1, requestsPerSecond: 20 }),
      runTest({ targetUrl: `${site.http1Url}/`, concurrentUsers: 1, requestsPerSecond: 20 }),
      runTest({
        targetUrl: `${site.h2Url}/`,
        concurrentUsers: 2,
        requestsPerSecond: 0,
        http2: { streamsPerConnection: 2 },
        steps: [
          { name: 'login', path: '/delay/2/login', capture: { token: '/token' } },
          { name: 'orders', path: '/delay/2/orders', headers: { authorization: 'Bearer {{token}}' } },
        ],
      }),
    ]);
    for (const [name, { r }, path] of [
      ['closed h2', closedH2, '/delay/5/closed-h2'],
      ['closed h2c', closedH2c, '/delay/5/closed-h2c'],
      ['open h2', openH2, '/open-h2'],
      ['open h2c', openH2c, '/open-h2c'],
    ] as const) {
      console.log(`${name}: ${r.total_requests} requests, ${r.throughput}/s, p99 ${r.p99_response_time} ms`);
      expect(r.failed_requests, name).toBe(0);
      expect(r.protocols, name).toEqual({ h2: r.total_requests });
      expect(site.paths[path], name).toEqual({ h2: r.total_requests });
    }
    expect(closedH2.config).toMatchObject({ http_version: '2', http2: { streams_per_connection: 1 } });
    expect(closedH2.r.http2).toEqual({ connections: 3, server_max_concurrent_streams: null });
    expect(openH2c.r.http2.connections).toBe(1);
    // The open model keeps its rate: 50 a second for 10 seconds, sent or (on a starved machine) dropped.
    for (const { r } of [openH2, openH2c]) {
      expect(r.total_requests + r.dropped_requests).toBeGreaterThanOrEqual(490);
      expect(r.total_requests + r.dropped_requests).toBeLessThanOrEqual(500);
    }

    // 50 users at 10 streams per connection: 5 connections, as the server (this test's own) counted them.
    expect(shared.r.http2.connections).toBe(5);
    expect(shares.connections.h2c).toBe(5);
    expect(shares.sessions).toBe(5);
    expect(shares.maxOpenStreams).toBe(10);
    expect(shares.paths['/delay/100']).toEqual({ h2: shared.r.total_requests });
    expect(shared.r.failed_requests).toBe(0);
    expect(shared.r.verdict).toBe('passed');
    expect(Object.keys(shared.r.phases).sort()).toEqual(['connect', 'dns', 'tls', 'transfer', 'ttfb']);
    expect(shared.r.phases.ttfb.p50).toBeGreaterThanOrEqual(100);
    expect(shared.r.phases.tls.max).toBe(0); // h2c: no TLS

    expect(reset.r.errors).toEqual({ 'stream_reset:INTERNAL_ERROR': reset.r.total_requests });
    expect(reset.r.total_requests).toBeGreaterThan(150);

    // No request was sent: every attempt a connection error, the run one that tested nothing.
    expect(noH2.r.total_requests).toBe(0);
    expect(noH2.r.errors).toEqual({ http2_not_offered: noH2.r.connection_errors });
    expect(noH2.r).toMatchObject({ verdict: 'failed', verdict_reason: 'target_unreachable' });
    expect(noH2.r.protocols).toEqual({});
    expect(site.requests['http/1.1']).toBeUndefined();

    const [login, orders] = scenario.r.steps;
    expect(scenario.r.failed_requests).toBe(0);
    expect(login.capture_failures).toBe(0);
    expect(orders.status_codes).toEqual({ 200: orders.requests });
    expect(site.paths['/delay/2/orders']).toEqual({ h2: orders.requests });
    expect(scenario.r.protocols).toEqual({ h2: scenario.r.total_requests });

    const run = await cli;
    expect(run.code, run.stderr).toBe(0);
    const answered = site.paths['/delay/5/cli-h2c']?.h2 ?? 0;
    expect(answered).toBeGreaterThan(100);
    expect(run.stdout).toContain(`protocols ${'.'.repeat(13)} h2: ${answered} (2 connections)`);
  });

  it('refuses a target outside NETWORK_ALLOW over HTTP/2 before any connection', async () => {
    const elsewhere = await startH2Target({ host: '127.0.0.2' });
    try {
      for (const url of [elsewhere.h2Url, elsewhere.h2cUrl, 'https://10.0.0.1/']) {
        const refused = await start({
          targetUrl: url,
          httpMethod: 'GET',
          concurrentUsers: 1,
          testDuration: 10,
          httpVersion: '2',
        });
        expect(refused.status).toBe(400);
        expect(refused.body.message).toMatch(/^targetUrl: target not allowed/);
      }
      expect(elsewhere.connections).toEqual({ h2: 0, h2c: 0, http1: 0 });
    } finally {
      await elsewhere.close();
    }
  });

  it('refuses HTTP/2 options that do not apply, naming the field', async () => {
    const base = { targetUrl: `${site.h2cUrl}/`, httpMethod: 'GET', concurrentUsers: 1, testDuration: 10 };
    for (const [body, message] of [
      [{ httpVersion: '3' }, 'httpVersion: must be "1.1" or "2"'],
      [{ http2: { streamsPerConnection: 10 } }, 'http2: is given only with httpVersion "2"'],
      [
        { httpVersion: '2', http2: { streamsPerConnection: 1001 } },
        'http2.streamsPerConnection: must be from 1 to 1000',
      ],
      [{ httpVersion: '2', http2: { streams: 2 } }, 'http2.streams: is not a field of this body'],
    ] as const) {
      const refused = await start({ ...base, ...body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.message).toContain(message);
    }
  });
});
