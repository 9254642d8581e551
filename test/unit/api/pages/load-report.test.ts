import { describe, expect, it } from 'vitest';
import { loadReportPage } from '../../../../api/pages/load-report.ts';
import type { ReportTest } from '../../../../api/services/load-tests/load-report.ts';
import { PHASE_TABLE_COLUMNS, PHASE_TABLE_ROWS } from '../../../support/phases-table.ts';
import { reportTest } from '../../../support/report-test.ts';

const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const test = (id: string): ReportTest => {
  const t = reportTest(id, `https://example.test/${evil}`, { failure_reason: evil, aborted_by: evil });
  return { ...t, steps: [{ ...t.steps[0]!, name: evil }], errors: { [evil]: 1 } };
};

describe('load test report page', () => {
  it('escapes everything a test or its target chose, and forbids every fetch', () => {
    const page = loadReportPage({
      success: true,
      generated_at: '2026-11-23T10:01:00.000Z',
      tests: [test('AAAAAAAAAAAAAAAAAAAAAA'), test('BBBBBBBBBBBBBBBBBBBBBB')],
    });
    // Each test's column headed by its letter, which is all a screen reader repeats for each cell, and its id.
    expect(page).toContain('<th class="n" abbr="A">A <small class="test-id">AAAAAAAAAAAAAAAAAAAAAA</small></th>');
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain(
      'http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src ' +
        '&#39;unsafe-inline&#39;; img-src data:"',
    ); // (quotes as entities)
    // 2 tests: requests, p50, p95, p99, errors; each chart drawn for a phone, a medium and a wide box.
    expect(page.match(/<polyline /g)).toHaveLength(30);
  });

  it(
    "charts each second's p50, p95 and p99, the requests " + 'and the errors, with at least 3 labelled ticks per axis',
    () => {
      const page = loadReportPage({ success: true, generated_at: '2026-11-23T10:01:00.000Z', tests: [test('E')] });
      const figures = [...page.matchAll(/<figure class="load-chart" data-chart="(\w+)">.*?<\/figure>/gs)];
      expect(figures.map((f) => f[1])).toEqual(['requests', 'latency', 'errors']);
      const units: Record<string, RegExp> = { requests: / req\/s$/, latency: / ms$/, errors: / errors?\/s$/ };
      for (const [figure, name] of figures) {
        for (const svg of figure.match(/<svg .*?<\/svg>/gs)!) {
          const ys = [...svg.matchAll(/<text class="tick-y"[^>]*>([^<]+)</g)].map((m) => m[1]!);
          const xs = [...svg.matchAll(/<text class="tick-x"[^>]*>([^<]+)</g)].map((m) => m[1]!);
          expect(ys.length).toBeGreaterThanOrEqual(3);
          expect(xs).toEqual(['0 s', '1 s', '2 s', '3 s']);
          for (const y of ys) expect(y).toMatch(units[name!]!);
        }
      }
      // A count's unit in the singular after exactly 1 (the errors reach 1 in the second second).
      expect(figures[2]![0]).toContain('>1 error/s<');
      expect(page).not.toContain('1 errors/s');
      const latency = figures[1]![0];
      // Each second's p50, p95 and p99 in every drawing.
      expect(latency).toContain('Latency of the requests sent each second: p50, p95 and p99');
      expect([...latency.matchAll(/data-line="(p\d\d)"/g)].map((m) => m[1])).toEqual(
        Array.from({ length: 3 }, () => ['p50', 'p95', 'p99']).flat(),
      );
      // A test stored before seconds had histograms: its mean and slowest instead.
      const old = test('F');
      old.series = { ...old.series, p50_response_time_per_second: [null, null, null] };
      old.series.p95_response_time_per_second = [null, null, null];
      old.series.p99_response_time_per_second = [null, null, null];
      const before = loadReportPage({ success: true, generated_at: '2026-11-23T10:01:00.000Z', tests: [old] });
      expect(before).toContain('Latency of the requests sent each second: mean and slowest');
      expect(before).toContain('data-line="slowest"');
    },
  );

  it('shows the phases as one table, a row per phase and a column per statistic, and units on observed figures', () => {
    const phased = test('G');
    const figures = { avg: 1.5, p50: 1, p95: 3, p99: 4, max: 9 };
    phased.phases = { dns: figures, connect: figures, tls: figures, ttfb: figures, transfer: figures } as any;
    phased.thresholds = [
      { threshold: 'p95 < 300', observed: 111.11, pass: true },
      { threshold: 'error_rate < 1', observed: 0, pass: true },
    ];
    const page = loadReportPage({ success: true, generated_at: '2026-11-23T10:01:00.000Z', tests: [phased] });
    const table = /<table id="phases" class="reflow">.*?<\/table>/s.exec(page)![0];
    expect([...table.matchAll(/<th[^>]*>([^<]+)<\/th>/g)].map((m) => m[1])).toEqual([
      ...PHASE_TABLE_COLUMNS,
      ...PHASE_TABLE_ROWS,
    ]);
    expect(table.match(/<tr>/g)).toHaveLength(6);
    // On a phone each row reflows to a block (tables.css), each figure under its column's name.
    expect(table).toContain(
      '<th scope="row">TLS</th><td class="n" data-label="avg">1.5</td> <td class="n" data-label="p50">1</td>',
    );
    expect(page).toContain('<td class="n">111.11\u00a0ms</td>');
    expect(page).toContain('<td class="n">0\u00a0%</td>');
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
    // One of each in the singular: a user, a connection, a stream.
    const one = test('CCCCCCCCCCCCCCCCCCCCCC');
    one.config = { ...one.config, concurrent_users: 1, http_version: '2', http2: { streams_per_connection: 2 } };
    one.http2 = { connections: 1, server_max_concurrent_streams: 1 };
    const single = loadReportPage({ success: true, generated_at: '2026-11-23T10:01:00.000Z', tests: [one] });
    expect(single).toContain('1 user for 10 s');
    expect(single).toContain('2 users per connection: 1 connection opened.');
    expect(single).toContain('The server allowed only 1 stream at once per connection');
    expect(page).toContain('2 users for 10 s');
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
      new RegExp(
        [
          '^<main><h1>Load test CCCCCCCCCCCCCCCCCCCCCC<\\/h1><p class="fail" role="alert" data-verdict-reason="targ',
          'et_unreachable"><strong>Failed: target unreachable<\\/strong>, nothing was measured: all 23 attempts fai',
          'led: ECONNREFUSED\\.<\\/p>',
        ].join(''),
      ),
    );
    const alive = loadReportPage({
      success: true,
      generated_at: '2026-11-23T10:01:00.000Z',
      tests: [test('D'.repeat(22))],
    });
    expect(alive).not.toContain('target unreachable');
  });
});
