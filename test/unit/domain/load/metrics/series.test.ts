// A test's per-second series from its shards' reports: each second's figures added exactly across
// shards and reports, its percentiles from its histograms merged, the slowest the larger of theirs,
// status classes and errors adding up to the answers, seconds without answers as zeros.
import { describe, expect, it } from 'vitest';
import { mergeSeconds, PerSecondCounts } from '../../../../../domain/load/metrics/per-second.ts';
import { newPhaseTimes } from '../../../../../domain/load/phases.ts';
import { SERIES_COLUMNS } from '../../../../../contract/load/series-columns.ts';
import { secondPercentiles, seriesRows } from '../../../../../domain/load/metrics/series.ts';

const phases = (ttfbMs: number) => ({ ...newPhaseTimes(), connect: 100, ttfb: ttfbMs * 1000 });

describe('the per-second series', () => {
  it('adds the shards second by second, with percentiles, status classes, errors and phases', () => {
    const a = new PerSecondCounts();
    const b = new PerSecondCounts();
    // Second 1: 100 answers, 1..100 ms, split across two shards and, for shard a, two reports.
    for (let ms = 1; ms <= 100; ms++) {
      const shard = ms % 2 ? a : b;
      shard.countSent(1);
      if (ms === 100) continue; // answered after a's first report
      shard.countAnswer(1, ms * 1000, ms > 90, ms > 90 ? 503 : 200, phases(ms));
    }
    const first = a.drain();
    b.countAnswer(1, 100_000, true); // a timeout: no status
    b.countSent(2);
    b.countAnswer(2, 4000, false, 301, phases(4));
    const seconds = mergeSeconds([first, a.drain(), b.drain()], (s) => s >= 1);
    expect(seconds).toHaveLength(3);
    const start = Date.parse('2026-11-27T10:00:00Z');
    const rows = seriesRows(seconds, start, 1, 3, (s) => s * 10);
    expect(rows.map((r) => Object.keys(r))).toEqual([[...SERIES_COLUMNS], [...SERIES_COLUMNS]]);
    // HDR's percentiles: within its 3 significant digits of the exact ones.
    const { p50_response_time, p90_response_time, p95_response_time, p99_response_time, ...exact } = rows[0]!;
    expect([p50_response_time, p90_response_time, p95_response_time, p99_response_time]).toEqual(
      [50, 90, 95, 99].map((ms) => expect.closeTo(ms, 1)),
    );
    expect(exact).toEqual({
      second: 1,
      time: '2026-11-27T10:00:01.000Z',
      users: 10,
      requests: 100,
      answered: 100,
      failed: 10,
      error_rate: 10,
      avg_response_time: 50.5,
      max_response_time: 100,
      status_2xx: 90,
      status_3xx: 0,
      status_4xx: 0,
      status_5xx: 9,
      errors: 1,
      connection_errors: 0,
      dns_avg: 0,
      connect_avg: 0.1,
      tls_avg: 0,
      ttfb_avg: 50,
      transfer_avg: 0,
    });
    expect(rows[1]).toMatchObject({ second: 2, users: 20, requests: 1, status_3xx: 1, max_response_time: 4 });
    expect(rows[1]!.p99_response_time).toBeCloseTo(4, 1);
    // A second no shard reported in, and one past the last: zeros.
    expect(seriesRows(seconds, start, 0, 1, () => 0)[0]).toMatchObject({
      requests: 0,
      answered: 0,
      p50_response_time: 0,
    });
  });

  it('decodes only the histograms of the seconds asked for', () => {
    const a = new PerSecondCounts();
    for (const second of [0, 1]) {
      a.countSent(second);
      a.countAnswer(second, 5000, false, 200);
    }
    const seconds = mergeSeconds([a.drain()], (s) => s >= 1);
    expect(seconds[0]!.histogram).toBeNull();
    expect(seconds[1]!.histogram?.totalCount).toBe(1);
  });

  it('leaves what a second stored before its details does not know empty, not zero', () => {
    const legacy = [{ second: 0, sent: 3, answered: 3, failed: 1, latencySumUs: 9000, latencyMaxUs: 5000 }];
    const [row] = seriesRows(
      mergeSeconds([legacy], () => true),
      0,
      0,
      1,
      () => 3,
    );
    expect(row).toMatchObject({ requests: 3, answered: 3, failed: 1, avg_response_time: 3, max_response_time: 5 });
    expect([row!.p50_response_time, row!.status_2xx, row!.errors, row!.ttfb_avg]).toEqual([null, null, null, null]);
  });

  it('counts an attempt never sent apart: out of requests and answers, in connection_errors and the error rate', () => {
    const a = new PerSecondCounts();
    a.countSent(0);
    a.countAnswer(0, 2000, false, 200);
    a.countSent(0);
    a.countSent(0);
    const first = a.drain(); // 3 sent, 1 answered: the other two were refused after this report
    a.countConnectionError(0);
    a.countConnectionError(0);
    const row = seriesRows(mergeSeconds([first, a.drain()]), 0, 0, 1, () => 1)[0]!;
    expect(row).toMatchObject({ requests: 1, answered: 1, failed: 0, errors: 0, connection_errors: 2 });
    expect(row.error_rate).toBe(66.67); // 2 of 3 attempts
  });
});

describe('the percentiles kept with the results', () => {
  it("are the series' own, second by second across a minute's chunks, null where nothing was answered", async () => {
    // 130 seconds over two shards (three chunks of a minute), each second slower than the last; second 70 unanswered.
    const a = new PerSecondCounts();
    const b = new PerSecondCounts();
    for (let second = 0; second < 130; second++) {
      if (second === 70) {
        a.countSent(second);
        continue;
      }
      for (let i = 1; i <= 20; i++) {
        const shard = i % 2 ? a : b;
        shard.countSent(second);
        shard.countAnswer(second, (second + i) * 1000, false, 200);
      }
    }
    const reports = [a.drain(), b.drain()];
    const kept = await secondPercentiles(reports, 130);
    const rows = seriesRows(
      mergeSeconds(reports, () => true),
      0,
      0,
      130,
      () => 0,
    );
    for (const [k, column] of [
      ['p50', 'p50_response_time'],
      ['p95', 'p95_response_time'],
      ['p99', 'p99_response_time'],
    ] as const) {
      expect(kept[k]).toHaveLength(130);
      expect(kept[k][70]).toBeNull();
      expect(kept[k].filter((_, s) => s !== 70)).toEqual(rows.filter((r) => r.second !== 70).map((r) => r[column]));
    }
    expect(kept.p95[129]).toBeCloseTo(148, 0);
  });
});
