// A load test's figures for every second (GET /load-testing/series/{id}): NDJSON streamed while the
// test runs (the first line before its end), a line for every second of a 10-second test whose
// requests add up to the results' total, each with its users, percentiles, status classes and phases;
// the same rows as CSV once it has ended.
import { describe, expect, it } from 'vitest';
import { call, expectErrorShape, targets } from '../support/client.ts';
import { loadTestSuite, pacedTest } from '../support/load-tests.ts';

// Written out rather than imported from contract/load/series-columns.ts: the columns are the public
// answer, and a change to them must show here. As the CSV's header row, a line per group of columns.
const CSV_HEADER =
  'second,time,users,requests,answered,failed,error_rate,' +
  'avg_response_time,p50_response_time,p90_response_time,p95_response_time,p99_response_time,max_response_time,' +
  'status_2xx,status_3xx,status_4xx,status_5xx,errors,connection_errors,' +
  'dns_avg,connect_avg,tls_avg,ttfb_avg,transfer_avg';
const COLUMNS = CSV_HEADER.split(',');

describe.each(targets())('load test series ($name)', (target) => {
  const { site, account, start, status, waitFor, results } = loadTestSuite(target);
  const series = async (id: string, query = '') =>
    fetch(`${target.baseUrl}/api/v1/load-testing/series/${id}${query}`, {
      headers: { 'X-API-Key': (await account).key },
    });

  it('streams a line a second while the test runs, every second of it, adding up to the results', {
    timeout: 60_000,
  }, async () => {
    const started = await start(pacedTest(`${site().url}/series`));
    expect(started.status, started.text).toBe(202);
    const id = started.body.test_id as string;
    const answer = await series(id);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines: Array<Record<string, unknown>> = [];
    let statusAtFirstLine = '';
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let at = buffered.indexOf('\n');
      while (at >= 0) {
        lines.push(JSON.parse(buffered.slice(0, at)));
        buffered = buffered.slice(at + 1);
        at = buffered.indexOf('\n');
        if (lines.length === 1) statusAtFirstLine = (await status(id)).body.status;
      }
    }
    expect(statusAtFirstLine).toBe('running');
    expect(lines.map((l) => l.second)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const l of lines) expect(Object.keys(l)).toEqual(COLUMNS);
    await waitFor(id, (b) => b.status === 'completed');
    const total = (await results(id)).body.results.total_requests as number;
    expect(total).toBeGreaterThan(150);
    expect(lines.reduce((n, l) => n + (l.answered as number), 0)).toBe(total);
    expect(lines.reduce((n, l) => n + (l.requests as number), 0)).toBe(total);
    expect(lines.every((l) => l.failed === 0 && (l.requests as number) > 0)).toBe(true);
    expect(Date.parse(lines[1]!.time as string) - Date.parse(lines[0]!.time as string)).toBe(1000);
    // Each second's users, latency percentiles, status classes and phases.
    for (const l of lines) {
      expect(l.users).toBe(2);
      const latency = ['avg', 'p50', 'p90', 'p95', 'p99', 'max'].map((s) => l[`${s}_response_time`] as number);
      expect(latency[1]).toBeGreaterThan(0);
      expect(latency.slice(1)).toEqual([...latency.slice(1)].sort((a, b) => a - b));
      expect(l.max_response_time as number).toBeGreaterThanOrEqual(l.avg_response_time as number);
      expect([l.status_2xx, l.status_3xx, l.status_4xx, l.status_5xx, l.errors]).toEqual([l.answered, 0, 0, 0, 0]);
      expect(l.ttfb_avg as number).toBeGreaterThan(0);
      expect(l.ttfb_avg as number).toBeLessThanOrEqual(l.max_response_time as number);
    }

    // Once ended: every row at once, as CSV.
    const csv = await series(id, '?format=csv');
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = (await csv.text()).trim().split('\r\n');
    expect(rows[0]).toBe(CSV_HEADER);
    expect(rows).toHaveLength(11);
    const requests = COLUMNS.indexOf('requests');
    expect(rows.slice(1).reduce((n, r) => n + Number(r.split(',')[requests]), 0)).toBe(total);
    expect(rows[1]!.split(',').slice(0, 1)).toEqual(['0']);
    const later = (await (await series(id, '?format=csv&from=7')).text()).trim().split('\r\n');
    expect(later.slice(1).map((r) => r.split(',')[0])).toEqual(['7', '8', '9']);
  });

  it('refuses a format it does not write, and a test that is not yours', async () => {
    const key = (await account).key;
    const bad = await call(target, 'GET', '/api/v1/load-testing/series/abc?format=xml', { key });
    expectErrorShape(bad, 400);
    expect(bad.body.message).toBe('format: must be ndjson or csv (query)');
    expectErrorShape(await call(target, 'GET', '/api/v1/load-testing/series/no-such-test', { key }), 404);
  });
});
