import { describe, expect, it } from 'vitest';
import { loadReportPage } from '../../../../api/pages/load-report.ts';
import type { ReportTest } from '../../../../api/services/load-report.ts';
import { loadTestConfig } from '../../../support/load-config.ts';

const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const test = (id: string): ReportTest => ({
  test_id: id,
  status: 'failed',
  config: loadTestConfig(`https://example.test/${evil}`),
  started_at: '2026-11-23T10:00:00.000Z',
  completed_at: '2026-11-23T10:00:10.000Z',
  failure_reason: evil,
  verdict: 'failed',
  aborted_by: evil,
  thresholds: [{ threshold: 'p99 < 1', observed: 3, pass: false }],
  summary: { total_requests: 10, throughput: 1, p95_response_time: 2 },
  phases: null,
  steps: [
    {
      step: 1,
      name: evil,
      requests: 1,
      failed_requests: 0,
      error_rate: 0,
      capture_failures: 0,
      avg_response_time: 1,
      p50_response_time: 1,
      p95_response_time: 1,
      p99_response_time: 1,
      max_response_time: 1,
      status_codes: {},
    },
  ],
  status_codes: { '200': 10 },
  errors: { [evil]: 1 },
  protocols: { 'http/1.1': 10 },
  http2: null,
  series: {
    requests_per_second: [1, 2, 3],
    error_rate_per_second: [0, 0, 0],
    avg_response_time_per_second: [1, 1, 1],
    max_response_time_per_second: [2, 2, 2],
  },
});

describe('load test report page', () => {
  it('escapes everything a test or its target chose, and forbids every fetch', () => {
    const page = loadReportPage({
      success: true,
      generated_at: '2026-11-23T10:01:00.000Z',
      tests: [test('AAAAAAAAAAAAAAAAAAAAAA'), test('BBBBBBBBBBBBBBBBBBBBBB')],
    });
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain(
      'http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; img-src data:"',
    ); // (quotes as entities)
    // 2 tests: requests, mean, slowest, errors; each chart drawn twice (a wide page's and a phone's).
    expect(page.match(/<polyline /g)).toHaveLength(16);
  });

  it("draws an hour's seconds as at most one point per unit of a chart's width, keeping the peak", () => {
    const long = test('EEEEEEEEEEEEEEEEEEEEEE');
    const seconds = Array.from({ length: 3600 }, (_, i) => (i === 1234 ? 500 : 100));
    long.series = { ...long.series, requests_per_second: seconds };
    const page = loadReportPage({ success: true, generated_at: '2026-11-23T10:01:00.000Z', tests: [long] });
    const requests = page.slice(page.indexOf('data-chart="requests"'), page.indexOf('data-chart="latency"'));
    const drawings = [...requests.matchAll(/<svg class="(\w+)".*?viewBox="0 0 (\d+) (\d+)".*?points="([^"]+)"/gs)];
    expect(drawings.map((d) => d[1])).toEqual(['wide', 'narrow']);
    for (const [, , width, , points] of drawings) {
      const xy = points!.split(' ').map((p) => p.split(',').map(Number) as [number, number]);
      expect(xy.length).toBeLessThanOrEqual(Number(width) - 60);
      expect(xy.length).toBeGreaterThan(Number(width) / 3);
      expect(Math.min(...xy.map(([, y]) => y))).toBe(10); // the spike at the top (T = 10), not averaged away
      expect(xy[0]![0]).toBe(Number(width) === 800 ? 60 : 64); // from the axis (L)
      expect(xy.at(-1)![0]).toBe(Number(width) - (Number(width) === 800 ? 12 : 8)); // to the axis's end (W - R)
    }
  });

  it('says which protocol answered, and over HTTP/2 how users shared connections and what the server allowed', () => {
    const h2 = test('CCCCCCCCCCCCCCCCCCCCCC');
    h2.config = { ...h2.config, http_version: '2', http2: { streams_per_connection: 10 } };
    h2.protocols = { h2: 10 };
    h2.http2 = { connections: 5, server_max_concurrent_streams: 4 };
    const page = loadReportPage({ success: true, generated_at: '2026-11-23T10:01:00.000Z', tests: [h2] });
    expect(page).toContain('Over HTTP/2, 10 users per connection: 5 connections opened.');
    expect(page).toContain('data-limit="4"');
    expect(page).toMatch(/Answers by protocol<\/h2><div class="scroll"><table>.*<td>h2<\/td><td class="n">10<\/td>/s);
    const h1 = loadReportPage({ success: true, generated_at: '2026-11-23T10:01:00.000Z', tests: [test('D')] });
    expect(h1).not.toContain('HTTP/2');
    expect(h1).toMatch(/<td>http\/1.1<\/td><td class="n">10<\/td>/);
  });

  it('says first, under its title, that a run tested nothing', () => {
    const dead: ReportTest = {
      ...test('CCCCCCCCCCCCCCCCCCCCCC'),
      status: 'completed',
      failure_reason: null,
      aborted_by: null,
      thresholds: [],
      verdict_reason: 'target_unreachable',
      verdict_detail: 'all 23 attempts failed: ECONNREFUSED',
    };
    const page = loadReportPage({ success: true, generated_at: '2026-11-23T10:01:00.000Z', tests: [dead] });
    const main = page.slice(page.indexOf('<main>'));
    expect(main).toMatch(
      /^<main><h1>Load test CCCCCCCCCCCCCCCCCCCCCC<\/h1><p class="fail" role="alert" data-verdict-reason="target_unreachable"><strong>Failed: target unreachable<\/strong>, nothing was measured: all 23 attempts failed: ECONNREFUSED\.<\/p>/,
    );
    const alive = loadReportPage({
      success: true,
      generated_at: '2026-11-23T10:01:00.000Z',
      tests: [test('D'.repeat(22))],
    });
    expect(alive).not.toContain('target unreachable');
  });
});
