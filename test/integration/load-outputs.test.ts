// A load test's metrics in the user's own monitoring: a real Prometheus takes the remote writes of a
// 20-second test every 2 s (the request count rising while it runs, its last value the results'
// total, the p95 gauge the results' p95, the tags as labels); an output whose receiver refuses
// connections shows its errors and never fails the test; every PromQL expression of the shipped
// Grafana dashboard answers something against that Prometheus, its request rate the test's own; a
// target slow in the last 10 s of a test shows in the last write's interval latency, which the
// figures of the requests so far do not; bad outputs and tags are refused.
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrometheus, type PrometheusFixture } from '../fixtures/prometheus.ts';
import { loadTestSuite } from '../support/load-tests.ts';
import { freePort } from '../support/processes.ts';
import { targets } from '../support/client.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(targets())('load test outputs ($name)', (target) => {
  const { site, start, status, waitFor, results } = loadTestSuite(target);
  let prometheus: PrometheusFixture;
  beforeAll(async () => {
    prometheus = await startPrometheus();
  }, 60_000);
  afterAll(() => prometheus?.close());

  it('writes the merged figures to Prometheus while the test runs and once at the end; a refusing receiver ' +
    'only counts errors', {
    timeout: 90_000,
  }, async () => {
    const refused = `http://127.0.0.1:${await freePort()}/api/v1/write`;
    const started = await start({
      targetUrl: `${site().url}/outputs`,
      httpMethod: 'GET',
      concurrentUsers: 4,
      testDuration: 20,
      rampUpTime: 0,
      requestsPerSecond: 40,
      tags: { env: 'ci', team: 'checkout' },
      outputs: [
        { type: 'prometheus_remote_write', url: prometheus.writeUrl, interval_seconds: 2 },
        { type: 'prometheus_remote_write', url: refused, interval_seconds: 2, headers: { Authorization: 'Bearer x' } },
        { type: 'ndjson' },
      ],
    });
    expect(started.status, started.text).toBe(202);
    const id = started.body.test_id as string;
    expect(started.body.config.outputs).toEqual([
      { type: 'prometheus_remote_write', url: prometheus.writeUrl, header_names: [], interval_seconds: 2 },
      { type: 'prometheus_remote_write', url: refused, header_names: ['Authorization'], interval_seconds: 2 },
      { type: 'ndjson' },
    ]);

    // While it runs: the count Prometheus holds rises.
    const seen: number[] = [];
    while ((await status(id)).body.status !== 'completed' && seen.length < 100) {
      const [sample] = await prometheus.query(`netops_http_reqs_total{test_id="${id}"}`);
      if (sample && (await status(id)).body.status === 'running') seen.push(Number(sample.value[1]));
      await sleep(1000);
    }
    const rising = seen.filter((v, i) => i > 0 && v > seen[i - 1]!);
    console.log(`netops_http_reqs_total while running: ${seen.join(', ')}`);
    expect(rising.length).toBeGreaterThanOrEqual(3);

    const ended = await waitFor(id, (b) => b.status === 'completed');
    const answer = (await results(id)).body;
    const total = answer.results.total_requests as number;
    expect(total).toBeGreaterThan(500);
    // The last write comes right after the results are stored.
    const deadline = Date.now() + 15_000;
    let last = -1;
    while (Date.now() < deadline) {
      const [sample] = await prometheus.query(`netops_http_reqs_total{test_id="${id}"}`);
      last = Number(sample?.value[1] ?? -1);
      if (last === total) break;
      await sleep(500);
    }
    expect(last).toBe(total);
    const [p95] = await prometheus.query(`netops_http_req_duration_seconds{test_id="${id}", stat="p95"}`);
    const results95 = answer.results.p95_response_time as number;
    console.log(`p95: Prometheus ${Number(p95!.value[1]) * 1000} ms, results ${results95} ms`);
    expect(Math.abs(Number(p95!.value[1]) * 1000 - results95)).toBeLessThanOrEqual(results95 * 0.01);
    expect(p95!.metric).toMatchObject({
      test_id: id,
      target_host: new URL(site().url).host,
      env: 'ci',
      team: 'checkout',
    });

    // The refusing receiver: errors counted with the reason, the test completed all the same.
    const outputs = (await results(id)).body.outputs;
    expect(outputs[0]).toMatchObject({ type: 'prometheus_remote_write', errors: 0, last_error: null });
    expect(outputs[0].writes).toBeGreaterThanOrEqual(8);
    expect(outputs[1]).toMatchObject({ errors: expect.any(Number), writes: 0 });
    expect(outputs[1].errors).toBeGreaterThanOrEqual(5);
    expect(outputs[1].last_error).toMatch(/refused|ECONNREFUSED|could not connect/i);
    expect(outputs[2]).toEqual({ type: 'ndjson', url: `/api/v1/load-testing/series/${id}?format=ndjson` });
    expect(ended.outputs.map((o: { type: string }) => o.type)).toEqual(outputs.map((o: { type: string }) => o.type));

    // Every query of the shipped Grafana dashboard answers for this test, as Grafana asks it with the
    // Write interval set to the output's 2 s: each query's min step, so $__rate_interval is 4 writes
    // (Grafana: max($__interval + min step, 4 * min step)). Asked in the middle of the test, the
    // requests per second are the test's 40, not a minute's average over a 20-second test.
    const dashboard = JSON.parse(await fs.readFile('docs/grafana/load-test.json', 'utf8'));
    const writeInterval = dashboard.templating.list.find((v: any) => v.name === 'write_interval');
    expect(writeInterval.options.map((o: any) => o.value)).toContain('2s');
    const targetsOf = dashboard.panels.flatMap((p: any) => p.targets.map((t: any) => ({ ...t, panel: p.title })));
    expect(targetsOf.length).toBeGreaterThanOrEqual(8);
    const [written] = await prometheus.samples(`netops_http_reqs_total{test_id="${id}"}[10m]`);
    const middle = Number(written!.values[Math.floor(written!.values.length / 2)]![0]);
    for (const t of targetsOf) {
      expect(t.interval, t.expr).toBe('$write_interval');
      const expr = t.expr.replaceAll('$test_id', id).replaceAll('$__rate_interval', `${4 * 2}s`);
      const answered = await prometheus.query(expr, middle);
      expect(answered.length, expr).toBeGreaterThan(0);
      if (t.panel === 'Requests per second') {
        console.log(
          `requests per second in the middle of the test, as the dashboard shows them: ${answered[0]!.value[1]}`,
        );
        expect(Number(answered[0]!.value[1])).toBeGreaterThan(40 * 0.75);
        expect(Number(answered[0]!.value[1])).toBeLessThan(40 * 1.25);
      }
    }
    const variable = dashboard.templating.list.find((v: any) => v.name === 'test_id');
    expect(variable.definition).toBe('label_values(netops_http_reqs_total, test_id)');
  });

  it("a target slow in the test's last 10 s: the last write's interval p95 is at least 5x the first's", {
    timeout: 120_000,
  }, async () => {
    // A target of its own that answers at once for the first 19.5 s after its first request, then after
    // 2.5 s (the first interval's p95 on a busy machine can be tens of milliseconds, and was 0.46 s once
    // beside a whole CI run and other tests).
    let firstAt: number | null = null;
    const server = http.createServer((req, res) => {
      firstAt ??= Date.now();
      const delay = Date.now() - firstAt >= 19_500 ? 2500 : 0;
      req
        .resume()
        .on('end', () => setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), delay));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const started = await start({
        targetUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow-end`,
        httpMethod: 'GET',
        concurrentUsers: 25,
        testDuration: 30,
        rampUpTime: 0,
        requestsPerSecond: 20,
        outputs: [{ type: 'prometheus_remote_write', url: prometheus.writeUrl, interval_seconds: 10 }],
      });
      expect(started.status, started.text).toBe(202);
      const id = started.body.test_id as string;
      await waitFor(id, (b) => b.status === 'completed', 90_000);
      const total = (await results(id)).body.results.total_requests as number;
      // The last write comes right after the results are stored.
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        const [sample] = await prometheus.query(`netops_http_reqs_total{test_id="${id}"}`);
        if (Number(sample?.value[1]) === total) break;
        await sleep(500);
      }
      const valuesOf = async (selector: string) => {
        const [series] = await prometheus.samples(`${selector}[10m]`);
        return (series?.values ?? []).map(([, v]) => Number(v));
      };
      const p95 = await valuesOf(`netops_http_req_duration_interval_seconds{test_id="${id}", stat="p95"}`);
      const p50 = await valuesOf(`netops_http_req_duration_interval_seconds{test_id="${id}", stat="p50"}`);
      const soFar50 = await valuesOf(`netops_http_req_duration_seconds{test_id="${id}", stat="p50"}`);
      console.log(
        `interval p95 per write: ${p95.join(', ')}; p50: ${p50.join(', ')}; p50 so far: ${soFar50.join(', ')}`,
      );
      // Writes at 10, 20 and 30 s, and the last after the results.
      expect(p95.length).toBeGreaterThanOrEqual(3);
      expect(p95.at(-1)!).toBeGreaterThanOrEqual(2.5);
      expect(p95.at(-1)!).toBeGreaterThanOrEqual(5 * p95[0]!);
      // The figure of the requests so far is held down by the fast 20 s; the interval's is not.
      expect(p50.at(-1)!).toBeGreaterThanOrEqual(5 * soFar50.at(-1)!);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('refuses outputs and tags it cannot take, naming the field', { timeout: 30_000 }, async () => {
    const base = {
      targetUrl: `${site().url}/refused`,
      httpMethod: 'GET',
      concurrentUsers: 1,
      testDuration: 10,
    };
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ outputs: [{ type: 'influxdb' }] }, 400, /^outputs\.0\.type: must be prometheus_remote_write, ndjson or csv/],
      [{ outputs: { type: 'csv' } }, 400, /^outputs: must be a list of outputs/],
      [{ outputs: [{ type: 'prometheus_remote_write' }] }, 400, /^outputs\.0\.url is required/],
      [
        { outputs: [{ type: 'prometheus_remote_write', url: 'http://127.0.0.1:9/w', interval_seconds: 0 }] },
        400,
        /^outputs\.0\.interval_seconds: must be from 1 to 60/,
      ],
      [{ outputs: [{ type: 'csv', url: 'x' }] }, 400, /^outputs\.0\.url: is not a field/],
      [
        {
          outputs: [
            { type: 'prometheus_remote_write', url: 'http://127.0.0.1:9/w', headers: { 'Content-Length': '1' } },
          ],
        },
        400,
        /^outputs\.0\.headers: must not set host, content-length/,
      ],
      [
        {
          outputs: [
            { type: 'prometheus_remote_write', url: 'http://127.0.0.1:9/w' },
            { type: 'prometheus_remote_write', url: 'http://127.0.0.1:9/w', interval_seconds: 1 },
          ],
        },
        400,
        /^outputs\.1\.url: is the receiver of outputs\.0 already/,
      ],
      [
        { outputs: [{ type: 'prometheus_remote_write', url: 'http://user:pass@127.0.0.1:9/w' }] },
        400,
        /^outputs\.0\.url: credentials in the URL are not allowed/,
      ],
      [{ tags: { env: 'a\r\nb' } }, 400, /^tags\.env: must not contain line breaks/],
      [
        { outputs: [{ type: 'csv' }, { type: 'csv' }, { type: 'csv' }, { type: 'csv' }] },
        400,
        /^outputs: must hold at most 3/,
      ],
      [{ tags: { test_id: 'x' } }, 400, /^tags\.test_id: must not start with __ or be one of/],
      [{ tags: { 'bad-name': 'x' } }, 400, /^tags\.bad-name: must be a label name/],
      [
        { tags: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`t${i}`, 'v'])) },
        400,
        /^tags: must hold at most 10/,
      ],
      // The guard: a metadata address is refused before anything connects.
      [
        { outputs: [{ type: 'prometheus_remote_write', url: 'http://169.254.169.254/api/v1/write' }] },
        400,
        /^outputs\.0\.url: /,
      ],
    ];
    for (const [extra, code, message] of cases) {
      const answer = await start({ ...base, ...extra });
      expect([answer.status, answer.body.message], JSON.stringify(extra)).toEqual([
        code,
        expect.stringMatching(message),
      ]);
    }
  });
});
