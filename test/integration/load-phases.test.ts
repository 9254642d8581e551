// The phases of a load test's requests against a loopback HTTPS target whose first byte comes 60 ms
// after the request and whose body ends 30 ms later: each phase present, each in its place, their sum
// within the total; a phase threshold evaluated on them, live and at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpsServer, type HttpsFixture } from '../fixtures/https-server.ts';
import { newAccount, targets } from '../support/client.ts';
import { loadTestCalls } from '../support/load-tests.ts';

describe.each(targets())('load test phases ($name)', (target) => {
  let tls: HttpsFixture;
  const account = newAccount(target);
  beforeAll(async () => {
    tls = await startHttpsServer();
  });
  afterAll(() => tls.close());
  const { start, results, waitFor } = loadTestCalls(target, account);

  it('times DNS, connect, TLS, first byte and transfer of every request, within the total', {
    timeout: 60_000,
  }, async () => {
    const started = await start({
      targetUrl: `${tls.url}/slow/60/30`,
      httpMethod: 'GET',
      concurrentUsers: 3,
      testDuration: 10,
      rampUpTime: 0,
      requestsPerSecond: 20,
      insecureTls: true,
      thresholds: ['ttfb.p50 >= 60', 'transfer.p50 >= 30', 'tls.max > 0', 'ttfb.p99 < 60'],
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.test_id;
    // While it runs, the status judges the phase thresholds live, on the phases the shards stored.
    const live = await waitFor(
      id,
      (b) =>
        b.status !== 'pending' &&
        (b.status !== 'running' ||
          b.thresholds?.some(
            (t: { threshold: string; observed: number }) => t.threshold === 'ttfb.p50 >= 60' && t.observed > 0,
          )),
      40_000,
    );
    expect(live.status).toBe('running');
    expect(live.thresholds.find((t: { threshold: string }) => t.threshold === 'ttfb.p50 >= 60')).toMatchObject({
      pass: true,
    });
    await waitFor(id, (b) => b.status !== 'pending' && b.status !== 'running', 40_000);
    const r = (await results(id)).body.results;
    expect(r.failed_requests).toBe(0);
    console.log(
      `phases: ${JSON.stringify(r.phases)}; total avg ${r.avg_response_time} ms, max ${r.max_response_time} ms`,
    );
    const { dns, connect, tls: handshake, ttfb, transfer } = r.phases;
    for (const phase of [dns, connect, handshake, ttfb, transfer])
      expect(Object.keys(phase).sort()).toEqual(['avg', 'max', 'p50', 'p90', 'p95', 'p99']);
    // An address literal is not resolved; a kept-alive connection opens nothing (3 connections, about 180 requests).
    expect(dns.max).toBe(0);
    expect(connect.max).toBeGreaterThan(0);
    expect(handshake.max).toBeGreaterThan(0);
    expect(handshake.p50).toBe(0);
    expect(ttfb.p50).toBeGreaterThanOrEqual(60);
    expect(transfer.p50).toBeGreaterThanOrEqual(30);
    expect(transfer.p50).toBeLessThan(ttfb.p50);
    // The phases of a request add up to at most its latency (which also holds any wait for a connection).
    const sum = dns.avg + connect.avg + handshake.avg + ttfb.avg + transfer.avg;
    expect(sum).toBeLessThanOrEqual(r.avg_response_time + 0.05);
    expect(sum).toBeGreaterThan(r.avg_response_time * 0.9);
    for (const phase of [connect, handshake, ttfb, transfer])
      expect(phase.max).toBeLessThanOrEqual(r.max_response_time + 0.1);
    expect(r.thresholds).toEqual([
      { threshold: 'ttfb.p50 >= 60', observed: ttfb.p50, pass: true },
      { threshold: 'transfer.p50 >= 30', observed: transfer.p50, pass: true },
      { threshold: 'tls.max > 0', observed: handshake.max, pass: true },
      { threshold: 'ttfb.p99 < 60', observed: ttfb.p99, pass: false },
    ]);
  });
});
