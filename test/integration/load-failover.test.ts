// A load worker dies in the middle of a test: its shard stops heartbeating, Temporal retries it on
// another load worker within seconds, inside the same time window, and the results say what the
// failure cost (the restart, the seconds without traffic, the requests lost).
// Its own small cluster (embedded mode, one process per role), so that the victim is the only load worker
// when the test starts.
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';
import { pacedTest } from '../support/load-tests.ts';
import { startCluster, type AppProcess } from '../support/processes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ends the workflow of load test `id` as an operator would in Temporal UI. */
async function terminate(temporalAddress: string, id: string) {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    await new Client({ connection }).workflow.getHandle(`load-test-${id}`).terminate('operator');
  } finally {
    await connection.close();
  }
}

describe('load test shard failover', () => {
  let running: Awaited<ReturnType<typeof startCluster>> | undefined;
  let cluster:
    | {
        call: (method: string, path: string, body?: unknown) => Promise<any>;
        loadWorker: AppProcess;
        workflowsWorker: AppProcess;
        temporalAddress: string;
        role: (role: string) => Promise<AppProcess>;
      }
    | undefined;
  let site: LoadTarget | undefined;
  afterAll(async () => {
    await running?.stop();
    await site?.close();
  });

  // Four processes to start, a 30 s test and a retry: more than the default minute on a busy machine.
  it('resumes the shard of a load worker killed at 8 s of a 30-s test within seconds, and counts the gap and ' +
    'what was lost', {
    timeout: 150_000,
  }, async () => {
    site = await startLoadTarget();
    running = await startCluster('failover', { NETWORK_ALLOW: '127.0.0.1/32', LOAD_WORKER_WAIT_SECONDS: '10' });
    const { api, key, role } = running;
    const workflowsWorker = await role('worker:workflows');
    const victim = await role('worker:load');

    const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) =>
      (
        await fetch(`${api.baseUrl}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json() as Promise<any>;

    const path = '/failover';
    const started = await call('POST', '/api/v1/load-testing/start', {
      targetUrl: `${site.url}${path}`,
      httpMethod: 'GET',
      concurrentUsers: 10,
      testDuration: 30,
      rampUpTime: 0,
      requestsPerSecond: 100,
      thresholds: ['shard_restarts < 1', 'seconds_without_traffic <= 6'],
    });
    const id = started.test_id as string;
    for (let i = 0; i < 300 && site.count(path) === 0; i++) await sleep(100);
    const firstArrival = site.arrivals(path)[0];
    expect(firstArrival, 'the test never sent anything').toBeDefined();
    // The victim has the shard; a second load worker stands by (it polls the queue) before the kill.
    const loadWorker = await role('worker:load');
    cluster = { call, loadWorker, workflowsWorker, temporalAddress: api.temporalAddress, role };
    await sleep(firstArrival! + 8000 - Date.now());
    process.kill(victim.pid, 'SIGKILL');
    const killedAt = Date.now();

    let status: any;
    for (let i = 0; i < 300 && !['completed', 'failed', 'stopped'].includes(status?.status); i++) {
      await sleep(250);
      status = await call('GET', `/api/v1/load-testing/status/${id}`);
    }
    expect(status.status).toBe('completed');
    const { results } = await call('GET', `/api/v1/load-testing/results/${id}`);
    // The seconds of the test in which the target received nothing (counted by arrival).
    const arrivals = site.arrivals(path);
    const bySecond = new Array(30).fill(0);
    for (const at of arrivals) {
      const second = Math.floor((at - firstArrival!) / 1000);
      if (second < 30) bySecond[second] += 1;
    }
    const silent = bySecond.filter((n) => n === 0).length;
    const resumed = arrivals.find((at) => at > killedAt + 200);
    console.log(
      JSON.stringify({
        silent_seconds: silent,
        resumed_after_kill_ms: (resumed ?? NaN) - killedAt,
        target: arrivals.length,
        total_requests: results.total_requests,
        requests_lost: results.requests_lost,
        shard_restarts: results.shard_restarts,
        seconds_without_traffic: results.seconds_without_traffic,
        restarts: results.restarts,
      }),
    );
    expect(silent).toBeLessThanOrEqual(6);
    expect(results.shard_failures).toBe(1);
    expect(results.shard_restarts).toBe(1);
    expect(results.restarts).toEqual([
      {
        shard: 0,
        attempt: 2,
        seconds_without_traffic: results.seconds_without_traffic,
        requests_lost: results.requests_lost,
      },
    ]);
    // The results' count of the gap is the target's, give or take the second the kill fell in.
    expect(results.seconds_without_traffic).toBeGreaterThanOrEqual(silent - 1);
    expect(results.seconds_without_traffic).toBeLessThanOrEqual(silent + 1);
    // The retried shard sent load again, to the end of the window...
    // (seconds 20 to 28 of the window: the last one may be cut by where the first arrival fell; at
    // least half the asked 100/s on a busy machine)
    expect(
      bySecond.slice(20, 29).reduce((a, b) => a + b, 0),
      JSON.stringify(bySecond),
    ).toBeGreaterThan(9 * 50);
    // ...and everything counted reached the target; what the dead attempt sent after its last stored second is lost.
    expect(results.total_requests).toBeLessThanOrEqual(arrivals.length);
    expect(arrivals.length).toBeLessThanOrEqual(results.total_requests + results.requests_lost);
    expect(results.requests_lost).toBeGreaterThan(0);
    // Counted, not guessed: what the target got that no snapshot counted, and at most two tenths of a
    // second at the asked 100/s more (the allowance for what was sent after the last count), and a few.
    expect(results.requests_lost).toBeLessThanOrEqual(arrivals.length - results.total_requests + 25);
    // Thresholds read the restart and the gap: the verdict sees them.
    expect(results.thresholds).toEqual([
      { threshold: 'shard_restarts < 1', observed: 1, pass: false },
      { threshold: 'seconds_without_traffic <= 6', observed: results.seconds_without_traffic, pass: true },
    ]);
    expect(results.verdict).toBe('failed');
  });

  it('fails a test that no load worker takes within LOAD_WORKER_WAIT_SECONDS (10 s here), and stores that end', {
    timeout: 60_000,
  }, async () => {
    expect(cluster).toBeDefined();
    const { call, loadWorker } = cluster!;
    await loadWorker.stop();
    const started = await call(
      'POST',
      '/api/v1/load-testing/start',
      pacedTest(`${site!.url}/nobody`, { concurrentUsers: 1, requestsPerSecond: 1 }),
    );
    const id = started.test_id as string;
    expect(started.status).toBe('pending');
    let status: any;
    for (let i = 0; i < 400 && status?.status !== 'failed'; i++) {
      await sleep(250);
      status = await call('GET', `/api/v1/load-testing/status/${id}`);
      expect(['pending', 'failed']).toContain(status.status);
    }
    expect(status.status).toBe('failed');
    expect(status.failure_reason).toMatch(/no load worker took the test within 10 seconds/);
    // The stored row says so too (results, and the list, come from it).
    const results = await call('GET', `/api/v1/load-testing/results/${id}`);
    expect(results.status).toBe('failed');
    expect(results.failure_reason).toMatch(/no load worker/);
    const { data } = await call('GET', '/api/v1/load-testing/tests');
    expect(data.tests.find((t: any) => t.test_id === id)?.status).toBe('failed');
    expect(site!.count('/nobody')).toBe(0);
  });

  it('answers a pending test from the Temporal server alone, with no workflows worker, and stores an end an ' +
    'operator gave it in Temporal', {
    timeout: 60_000,
  }, async () => {
    expect(cluster).toBeDefined();
    const { call, workflowsWorker, temporalAddress } = cluster!;
    // No load worker (the test before stopped it) and no workflows worker: the test stays pending.
    await workflowsWorker.stop();
    const started = await call(
      'POST',
      '/api/v1/load-testing/start',
      pacedTest(`${site!.url}/unworked`, { concurrentUsers: 1, requestsPerSecond: 1 }),
    );
    const id = started.test_id as string;
    expect(started.status, JSON.stringify(started)).toBe('pending');
    // Each poll answers (no query waits for a worker that is not there).
    for (let i = 0; i < 3; i++) {
      const status = await call('GET', `/api/v1/load-testing/status/${id}`);
      expect(status, JSON.stringify(status)).toMatchObject({ test_id: id, status: 'pending' });
      await sleep(250);
    }
    const pending = await call('GET', `/api/v1/load-testing/results/${id}`);
    expect(pending, JSON.stringify(pending)).toMatchObject({ error_code: 'conflict' });

    // An operator ends its workflow in Temporal (UI or CLI): the next read stores that end.
    await terminate(temporalAddress, id);
    const status = await call('GET', `/api/v1/load-testing/status/${id}`);
    expect(status, JSON.stringify(status)).toMatchObject({
      status: 'failed',
      failure_reason: 'its workflow ended (terminated) before a load worker took it',
    });
    const results = await call('GET', `/api/v1/load-testing/results/${id}`);
    expect(results).toMatchObject({ status: 'failed', failure_reason: status.failure_reason });
    const { data } = await call('GET', '/api/v1/load-testing/tests');
    expect(data.tests.find((t: any) => t.test_id === id)?.status).toBe('failed');
    expect(site!.count('/unworked')).toBe(0);
  });

  it('stores the end of a running test whose workflow an operator ended, once its window has passed', {
    timeout: 90_000,
  }, async () => {
    expect(cluster).toBeDefined();
    const { call, temporalAddress, role } = cluster!;
    await Promise.all([role('worker:workflows'), role('worker:load')]);
    const started = await call(
      'POST',
      '/api/v1/load-testing/start',
      pacedTest(`${site!.url}/ended-by-operator`, { concurrentUsers: 1, requestsPerSecond: 5 }),
    );
    const id = started.test_id as string;
    let status: any;
    for (let i = 0; i < 120 && site!.count('/ended-by-operator') === 0; i++) await sleep(250);
    expect(site!.count('/ended-by-operator'), 'the test never sent anything').toBeGreaterThan(0);
    await terminate(temporalAddress, id);
    // Running until its window ends (nothing asks Temporal before), then failed, saying why.
    for (let i = 0; i < 160 && status?.status !== 'failed'; i++) {
      status = await call('GET', `/api/v1/load-testing/status/${id}`);
      expect(['running', 'failed'], JSON.stringify(status)).toContain(status.status);
      await sleep(250);
    }
    expect(status).toMatchObject({
      status: 'failed',
      failure_reason: 'its workflow ended (terminated) while the test ran: nothing was merged',
    });
    expect(status.metrics.total_requests).toBeGreaterThan(0);
    const results = await call('GET', `/api/v1/load-testing/results/${id}`);
    expect(results).toMatchObject({ status: 'failed', results: null, failure_reason: status.failure_reason });
  });
});
