// A load worker dies in the middle of a test: its shard stops heartbeating, Temporal retries it on
// another load worker within the same time window, and the results say what the failure cost.
// Its own small cluster (embedded mode, one process per role), so that the victim is the only load worker.
import { afterAll, describe, expect, it } from 'vitest';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';
import { startCluster, type AppProcess } from '../support/processes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('load test shard failover', () => {
  let running: Awaited<ReturnType<typeof startCluster>> | undefined;
  let cluster: { call: (method: string, path: string, body?: unknown) => Promise<any>; loadWorker: AppProcess } | undefined;
  let site: LoadTarget | undefined;
  afterAll(async () => {
    await running?.stop();
    await site?.close();
  });

  // Four processes to start, a 35 s test and a retry: more than the default minute on a busy machine.
  it('retries the shard of a killed load worker on another one, and the test still ends with its results', { timeout: 150_000 }, async () => {
    site = await startLoadTarget();
    running = await startCluster('failover', { NETWORK_ALLOW: '127.0.0.1/32' });
    const { api, key, role } = running;
    await role('worker:workflows');
    const victim = await role('worker:load');

    const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => (await fetch(`${api.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })).json() as Promise<any>;

    const path = '/failover';
    const started = await call('POST', '/api/v1/load-testing/start', { targetUrl: `${site.url}${path}`, httpMethod: 'GET', concurrentUsers: 10, testDuration: 35, rampUpTime: 0, requestsPerSecond: 50 });
    const id = started.test_id as string;
    for (let i = 0; i < 100; i++) {
      const s = await call('GET', `/api/v1/load-testing/status/${id}`);
      if (s.status === 'running' && s.metrics.total_requests >= 100) break;
      await sleep(200);
    }
    process.kill(victim.pid, 'SIGKILL');
    const countAtKill = site.count(path);
    cluster = { call, loadWorker: await role('worker:load') };

    let status: any;
    for (let i = 0; i < 300 && !['completed', 'failed', 'stopped'].includes(status?.status); i++) {
      await sleep(250);
      status = await call('GET', `/api/v1/load-testing/status/${id}`);
    }
    expect(status.status).toBe('completed');
    const { results } = await call('GET', `/api/v1/load-testing/results/${id}`);
    expect(results.shard_failures).toBe(1);
    // The retried shard sent load again after the failure...
    expect(site.count(path)).toBeGreaterThan(countAtKill + 100);
    // ...and everything counted reached the target; what the dead attempt sent after its last stored second is lost.
    expect(results.total_requests).toBeLessThanOrEqual(site.count(path));
    expect(results.total_requests).toBeGreaterThan(site.count(path) - 100);
  });

  it('fails a test that no load worker takes within a minute, and stores that end', { timeout: 120_000 }, async () => {
    expect(cluster).toBeDefined();
    const { call, loadWorker } = cluster!;
    await loadWorker.stop();
    const started = await call('POST', '/api/v1/load-testing/start', { targetUrl: `${site!.url}/nobody`, httpMethod: 'GET', concurrentUsers: 1, testDuration: 10, rampUpTime: 0, requestsPerSecond: 1 });
    const id = started.test_id as string;
    expect(started.status).toBe('pending');
    let status: any;
    for (let i = 0; i < 400 && status?.status !== 'failed'; i++) {
      await sleep(250);
      status = await call('GET', `/api/v1/load-testing/status/${id}`);
      expect(['pending', 'failed']).toContain(status.status);
    }
    expect(status.status).toBe('failed');
    expect(status.failure_reason).toMatch(/no load worker took the test/);
    // The stored row says so too (results, and the list, come from it).
    const results = await call('GET', `/api/v1/load-testing/results/${id}`);
    expect(results.status).toBe('failed');
    expect(results.failure_reason).toMatch(/no load worker/);
    const { data } = await call('GET', '/api/v1/load-testing/tests');
    expect(data.tests.find((t: any) => t.test_id === id)?.status).toBe('failed');
    expect(site!.count('/nobody')).toBe(0);
  });
});
