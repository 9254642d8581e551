// Pass/fail thresholds of load tests against a loopback target: evaluated on the totals merged across
// shards (live in the status, final in the results, with the figures the results show), malformed
// ones refused naming them (every one of them), k6's words and object form read as ours, and an
// abortOnFail threshold stopping a 60 s test soon after the target starts failing, while a delayed
// one waits its turn. Durations as strings ("10m") on REST.
import { describe, expect, it } from 'vitest';
import { call, expectErrorShape, targets } from '../support/client.ts';
import { loadTestSuite } from '../support/load-tests.ts';

describe.each(targets())('load test thresholds ($name)', (target) => {
  const { site, account, start, results, waitFor } = loadTestSuite(target);

  it('refuses a malformed threshold naming it', async () => {
    const body = { targetUrl: `${site().url}/x`, httpMethod: 'GET', concurrentUsers: 1, testDuration: 10 };
    const cases: Array<[unknown, RegExp]> = [
      [['p99 <'], /thresholds\.0: "p99 <" is not <metric> <operator> <number>/],
      [['p99 < 300', 'p42 < 1'], /thresholds\.1: .*unknown metric p42/],
      [[{ threshold: 'error_rate < 1', abortOnFail: 'yes' }], /thresholds\.0: .*abortOnFail must be true or false/],
      [[{ threshold: 'error_rate < 1', delayAbortEval: '-5s' }], /thresholds\.0: .*delayAbortEval/],
      [[{ threshold: 'error_rate < 1', abortOnFial: true }], /thresholds\.0: .*unknown field abortOnFial/],
      [Array.from({ length: 21 }, () => 'p99 < 300'), /thresholds: must hold at most 20/],
      ['p99 < 300', /thresholds: must be a list/],
    ];
    for (const [thresholds, message] of cases) {
      const refused = await start({ ...body, thresholds });
      expectErrorShape(refused, 400);
      expect(refused.body.message, JSON.stringify(thresholds)).toMatch(message);
    }
  });

  it('evaluates thresholds live and at the end, with the figures the results show', { timeout: 60_000 }, async () => {
    const path = '/delay/20/thresholds';
    const thresholds = [
      'p99 < 5000',
      'p50 >= 20',
      'error_rate < 1',
      'status_5xx_rate == 0',
      'avg < 10',
      'throughput > 100000',
      'p99.9 < 5000',
      'max < 5000',
    ];
    const started = await start({
      targetUrl: `${site().url}${path}`,
      httpMethod: 'GET',
      concurrentUsers: 4,
      testDuration: 10,
      rampUpTime: 0,
      requestsPerSecond: 60,
      thresholds,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.config.thresholds).toEqual(thresholds);
    const id = started.body.test_id;

    // Live: every threshold on the totals so far, avg < 10 already failing (the target takes 20 ms).
    const running = await waitFor(id, (b) => b.status === 'running' && b.thresholds?.length === thresholds.length);
    expect(running.thresholds.map((t: any) => t.threshold)).toEqual(thresholds);
    expect(running.thresholds.find((t: any) => t.threshold === 'avg < 10')).toMatchObject({ pass: false });
    expect(running.verdict).toBeUndefined();

    const ended = await waitFor(id, (b) => b.status !== 'running' && b.status !== 'pending', 40_000);
    expect(ended.status).toBe('completed');
    const r = (await results(id)).body.results;
    const outcome = Object.fromEntries(r.thresholds.map((t: any) => [t.threshold, t]));
    expect(outcome['p99 < 5000']).toEqual({ threshold: 'p99 < 5000', observed: r.p99_response_time, pass: true });
    expect(outcome['p50 >= 20']).toEqual({ threshold: 'p50 >= 20', observed: r.p50_response_time, pass: true });
    expect(outcome['error_rate < 1']).toEqual({ threshold: 'error_rate < 1', observed: r.error_rate, pass: true });
    expect(outcome['status_5xx_rate == 0']).toEqual({ threshold: 'status_5xx_rate == 0', observed: 0, pass: true });
    expect(outcome['avg < 10']).toEqual({ threshold: 'avg < 10', observed: r.avg_response_time, pass: false });
    expect(outcome['throughput > 100000']).toEqual({
      threshold: 'throughput > 100000',
      observed: r.throughput,
      pass: false,
    });
    expect(outcome['max < 5000']).toEqual({ threshold: 'max < 5000', observed: r.max_response_time, pass: true });
    expect(outcome['p99.9 < 5000'].observed).toBeGreaterThanOrEqual(r.p99_response_time);
    expect(outcome['p99.9 < 5000'].observed).toBeLessThanOrEqual(r.max_response_time);
    expect(r.verdict).toBe('failed');
    expect(r.aborted_by).toBeUndefined();
    expect(ended).toMatchObject({ verdict: 'failed', thresholds: r.thresholds });
  });

  it('stops a 60 s test soon after an abortOnFail threshold fails; a delayed one waits', {
    timeout: 90_000,
  }, async () => {
    const flipAt = Date.now() + 7000;
    const path = `/status-after/${flipAt}/500/abort`;
    const started = await start({
      targetUrl: `${site().url}${path}`,
      httpMethod: 'GET',
      concurrentUsers: 4,
      testDuration: 60,
      rampUpTime: 0,
      requestsPerSecond: 100,
      // The second fails from the first request, but may abort only after an hour: it must not stop the test.
      thresholds: [
        { threshold: 'error_rate < 1', abortOnFail: true },
        { threshold: 'avg < 0.001', abortOnFail: true, delayAbortEval: '3600s' },
        'p95 < 5000',
      ],
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.config.thresholds[0]).toEqual({
      threshold: 'error_rate < 1',
      abortOnFail: true,
      delayAbortEval: 0,
    });
    const id = started.body.test_id;
    const ended = await waitFor(id, (b) => b.status !== 'running' && b.status !== 'pending', 60_000);
    const arrivals = site().arrivals(path);
    const last = arrivals[arrivals.length - 1]!;
    // Requests went on until the target turned (the delayed threshold did not stop it), and stopped soon after.
    expect(last).toBeGreaterThanOrEqual(flipAt);
    const stopSeconds = (last - flipAt) / 1000;
    console.log(`abortOnFail: last request ${stopSeconds.toFixed(2)} s after the target began failing`);
    expect(stopSeconds).toBeLessThan(4);
    expect(ended).toMatchObject({ status: 'stopped', verdict: 'failed' });
    expect(ended.failure_reason).toContain('error_rate < 1');
    const r = (await results(id)).body.results;
    expect(r).toMatchObject({ verdict: 'failed', aborted_by: 'error_rate < 1' });
    expect(r.thresholds.map((t: any) => [t.threshold, t.pass])).toEqual([
      ['error_rate < 1', false],
      ['avg < 0.001', false],
      ['p95 < 5000', true],
    ]);
    expect(r.status_codes['500']).toBeGreaterThan(0);
    expect(r.duration_seconds).toBeLessThan(15);
  });

  it("reads k6's thresholds as written: {http_req_duration: [p(95)<300]} judged as p95 < 300", {
    timeout: 60_000,
  }, async () => {
    const path = '/delay/5/k6-words';
    const started = await start({
      targetUrl: `${site().url}${path}`,
      httpMethod: 'GET',
      concurrentUsers: 2,
      testDuration: '10s',
      rampUpTime: '0s',
      requestsPerSecond: 20,
      thresholds: {
        http_req_duration: ['p(95)<300', 'med < 0.3s'],
        http_req_failed: ['rate<0.01'],
        http_reqs: ['count>50'],
      },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    // Shown, stored and judged in our words.
    expect(started.body.config).toMatchObject({
      test_duration: 10,
      ramp_up_time: 0,
      thresholds: ['p95 < 300', 'p50 < 300', 'error_rate < 1', 'total_requests > 50'],
    });
    const id = started.body.test_id;
    const ended = await waitFor(id, (b) => b.status !== 'running' && b.status !== 'pending', 40_000);
    expect(ended.status).toBe('completed');
    const r = (await results(id)).body.results;
    expect(r.thresholds).toEqual([
      { threshold: 'p95 < 300', observed: r.p95_response_time, pass: true },
      { threshold: 'p50 < 300', observed: r.p50_response_time, pass: true },
      { threshold: 'error_rate < 1', observed: 0, pass: true },
      { threshold: 'total_requests > 50', observed: site().count(path), pass: true },
    ]);
    expect(r.p95_response_time).toBeGreaterThanOrEqual(5);
    expect(r.verdict).toBe('passed');
    expect(r.verdict_reason).toBeUndefined();
  });

  it('lists every refused threshold, each with the nearest form that would be read', async () => {
    const refused = await start({
      targetUrl: `${site().url}/x`,
      httpMethod: 'GET',
      concurrentUsers: 1,
      testDuration: 10,
      thresholds: ['p(97)<300', 'p95 < 300', 'latency < 300', 'error_rate < 1ms', 'http_req_duration < 300'],
    });
    expectErrorShape(refused, 400);
    const m = refused.body.message as string;
    expect(m).toMatch(/^thresholds: 4 of 5 thresholds refused: 0: "p\(97\)<300"/);
    expect(m).toContain('did you mean "p(99) < 300"?');
    expect(m).toContain('2: "latency < 300": unknown metric latency (did you mean "p95 < 300"?)');
    expect(m).toContain('3: "error_rate < 1ms": error_rate is a percentage of attempts');
    expect(m).toContain('did you mean "error_rate < 1"?');
    expect(m).toContain('4: "http_req_duration < 300": http_req_duration needs a statistic');
    expect(m).not.toContain('1: "p95 < 300"');
    // Units and case are read, not refused.
    const accepted = await start({
      targetUrl: `${site().url}/x`,
      httpMethod: 'GET',
      concurrentUsers: 1,
      testDuration: 10,
      thresholds: ['p95 < 3ms', 'P95 < 300', 'p(99) < 1.5s'],
      requestsPerSecond: 1,
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.body.config.thresholds).toEqual(['p95 < 3', 'p95 < 300', 'p99 < 1500']);
    await waitFor(accepted.body.test_id, (b) => b.status !== 'running' && b.status !== 'pending', 40_000);
  });

  it('takes testDuration "10m" on REST as 600 seconds (and stops it)', async () => {
    const started = await start({
      targetUrl: `${site().url}/ten-minutes`,
      httpMethod: 'GET',
      concurrentUsers: 1,
      testDuration: '10m',
      rampUpTime: 0,
      requestsPerSecond: 1,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.config.test_duration).toBe(600);
    const id = started.body.test_id;
    const running = await waitFor(id, (b) => b.status === 'running');
    expect(Date.parse(running.estimated_completion) - Date.parse(running.started_at)).toBe(600_000);
    const stopped = await call(target, 'POST', `/api/v1/load-testing/stop/${id}`, { key: (await account).key });
    expect(stopped.status).toBe(200);
    const refused = await start({
      targetUrl: `${site().url}/x`,
      httpMethod: 'GET',
      concurrentUsers: 1,
      testDuration: 'ten',
    });
    expectErrorShape(refused, 400);
    expect(refused.body.message).toBe(
      'testDuration: must be seconds or a duration such as 90, "90s", "10m" or "1h30m" (body)',
    );
  });
});
