// Iterations: each user sends its count of requests (or passes through the steps) and stops; the test
// ends when every user is done, long before its duration (a smoke test in CI), with exactly that many
// requests at the target. Validation names what cannot be counted.
import { describe, expect, it } from 'vitest';
import { expectErrorShape, targets } from '../support/client.ts';
import { loadTestSuite } from '../support/load-tests.ts';

describe.each(targets())('load test iterations ($name)', (target) => {
  const { site, start, results, waitFor } = loadTestSuite(target);

  it('sends each user its iterations and ends the test when all are done', { timeout: 60_000 }, async () => {
    const startedAt = Date.now();
    const started = await start({
      targetUrl: `${site().url}/iterations`,
      httpMethod: 'GET',
      concurrentUsers: 4,
      testDuration: 60,
      rampUpTime: 0,
      iterations: 3,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.config).toMatchObject({ concurrent_users: 4, test_duration: 60, iterations: 3 });
    const id = started.body.test_id;
    const ended = await waitFor(id, (b) => b.status !== 'pending' && b.status !== 'running', 50_000);
    expect(ended.status).toBe('completed');
    // Ended by its users, not its 60 s.
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    const r = (await results(id)).body.results;
    expect(r.total_requests).toBe(12);
    expect(site().count('/iterations')).toBe(12);
    expect(r.requests_per_second.reduce((a: number, b: number) => a + b, 0)).toBe(12);
  });

  it('counts a pass through the steps as one iteration', { timeout: 60_000 }, async () => {
    const started = await start({
      targetUrl: `${site().url}/pass`,
      httpMethod: 'GET',
      concurrentUsers: 2,
      testDuration: 60,
      rampUpTime: 0,
      iterations: 2,
      steps: [{ path: '/pass/one' }, { path: '/pass/two' }, { path: '/pass/three' }],
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.test_id;
    expect((await waitFor(id, (b) => b.status !== 'pending' && b.status !== 'running', 50_000)).status).toBe(
      'completed',
    );
    expect((await results(id)).body.results.total_requests).toBe(12);
    for (const step of ['one', 'two', 'three']) expect(site().count(`/pass/${step}`)).toBe(4);
  });

  it('refuses iterations where users do not each count their own', async () => {
    const base = { targetUrl: `${site().url}/x`, httpMethod: 'GET', concurrentUsers: 2, testDuration: 10 };
    const rate = await start({ ...base, requestsPerSecond: 10, iterations: 1 });
    expectErrorShape(rate, 400);
    expect(rate.body.message).toBe(
      "iterations: counts each user's requests in the closed model: leave out requestsPerSecond (body)",
    );
    const zero = await start({ ...base, iterations: 0 });
    expectErrorShape(zero, 400);
    expect(zero.body.message).toMatch(/^iterations: /);
  });
});
