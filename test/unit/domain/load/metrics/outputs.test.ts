// What an output sends: every series named and labelled, the latency gauges in seconds equal to the
// results' own figures once ended, counts per status; the users a profile has at a moment. A write's
// interval: only the seconds in its window, merged exactly across shards, reports and attempts, its
// percentiles those of every answer in it; nothing for a window without an attempt.
import type { SecondFigures, ShardSnapshot } from '../../../../../lib/load/snapshot.ts';
import { describe, expect, it } from 'vitest';
import { newHistogram } from '../../../../../domain/load/metrics/histogram.ts';
import { shardSnapshot, snapshotRow } from '../../../../support/snapshots.ts';
import { finalResults } from '../../../../../domain/load/metrics/metrics.ts';
import { intervalSeries, OUTPUT_METRICS, outputSeries, windowRow } from '../../../../../domain/load/metrics/outputs.ts';
import { PerSecondCounts } from '../../../../../domain/load/metrics/per-second.ts';

const snapshot = (latenciesMs: number[], failed: number, statusCodes: Record<string, number>) =>
  shardSnapshot(latenciesMs, {
    failed,
    statusCodes,
    bytesSent: 1000,
    bytesReceived: 5000,
    firstSentAt: 1_000_000,
    takenAt: 1_010_000,
  });
const row = (s: ShardSnapshot) => snapshotRow(s, true);

describe('outputSeries', () => {
  const rows = [
    row(
      snapshot(
        Array.from({ length: 90 }, (_, i) => 10 + i),
        0,
        { '200': 90 },
      ),
    ),
    row(
      snapshot(
        Array.from({ length: 10 }, () => 500),
        10,
        { '503': 10 },
      ),
    ),
  ];
  const labels = { test_id: 't', target_host: 'app.example:8080', env: 'ci' };

  it('sends every metric with the common labels, times in seconds, the results own figures once ended', () => {
    const series = outputSeries(rows, labels, 0, 42);
    expect(new Set(series.map((s) => s.name))).toEqual(
      new Set(OUTPUT_METRICS.filter((name) => !name.includes('_interval_'))),
    );
    for (const s of series) {
      expect(s.labels).toMatchObject(labels);
      expect(s.timestamp).toBe(42);
    }
    const one = (name: string, extra: Record<string, string> = {}) =>
      series.filter((s) => s.name === name && Object.entries(extra).every(([k, v]) => s.labels[k] === v));
    const results = finalResults(rows, []);
    expect(one('netops_http_reqs_total')[0]!.value).toBe(results.total_requests);
    expect(one('netops_http_req_failed_rate')[0]!.value).toBe(0.1);
    expect(one('netops_http_req_duration_seconds', { stat: 'p95' })[0]!.value).toBe(results.p95_response_time / 1000);
    expect(one('netops_http_req_duration_seconds', { stat: 'max' })[0]!.value).toBe(results.max_response_time / 1000);
    expect(one('netops_http_req_duration_seconds').map((s) => s.labels.stat)).toEqual([
      'avg',
      'p50',
      'p90',
      'p95',
      'p99',
      'max',
    ]);
    expect(one('netops_http_responses_total').map((s) => [s.labels.status, s.value])).toEqual([
      ['200', 90],
      ['503', 10],
    ]);
    expect(one('netops_data_sent_bytes_total')[0]!.value).toBe(2000);
    expect(one('netops_data_received_bytes_total')[0]!.value).toBe(10_000);
    expect(one('netops_http_req_phase_seconds')).toHaveLength(10);
  });

  it('sends the users it is given', () => {
    expect(outputSeries(rows, labels, 7, 1, 1_005_000).find((s) => s.name === 'netops_vus')!.value).toBe(7);
  });
});

describe("a write's interval", () => {
  const labels = { test_id: 't', target_host: 'app.example:8080' };
  /**
   * Two shards' reports of a 20-second test (the second attempt of shard b taking over at second 12):
   * 10 answers a second, 2..11 ms for the first 15 s, 200..245 ms from then on; every third one of
   * the slow seconds failed, and second 17 also has 5 connection errors. Returns the reports and the
   * latencies (µs) and failures sent in each second.
   */
  function reports() {
    const shards = [new PerSecondCounts(), new PerSecondCounts(), new PerSecondCounts()];
    const out: SecondFigures[][] = [];
    const sent: Array<{ latenciesUs: number[]; failed: number }> = [];
    for (let second = 0; second < 20; second++) {
      sent.push({ latenciesUs: [], failed: 0 });
      for (let i = 0; i < 10; i++) {
        const shard = i % 2 ? shards[0]! : second < 12 ? shards[1]! : shards[2]!;
        const us = second < 15 ? (2 + i) * 1000 : (200 + 5 * i) * 1000;
        const failed = second >= 15 && i % 3 === 0;
        shard.countSent(second);
        shard.countAnswer(second, us, failed, failed ? 503 : 200);
        sent[second]!.latenciesUs.push(us);
        if (failed) sent[second]!.failed += 1;
      }
      if (second === 17) for (let i = 0; i < 5; i++) shards[0]!.countConnectionError(second);
      // Reports of different lengths: a second split across reports merges whole.
      if (second % 3 === 1) for (const shard of shards) out.push(shard.drain());
    }
    for (const shard of shards) out.push(shard.drain());
    return { out, sent };
  }

  it("merges the window's seconds across shards and reports: its percentiles those of every answer in it", () => {
    const { out, sent } = reports();
    for (const [from, to] of [
      [0, 10],
      [10, 20],
      [14, 16],
    ] as const) {
      const row = windowRow(out, from, to);
      const expected = newHistogram();
      const latencies = sent.slice(from, to).flatMap((s) => s.latenciesUs);
      for (const us of latencies) expected.recordValue(us);
      const ms = (us: number) => Math.round(us / 10) / 100;
      const max = Math.max(...latencies);
      expect(row).toMatchObject({
        answered: latencies.length,
        failed: sent.slice(from, to).reduce((n, s) => n + s.failed, 0),
        connection_errors: from <= 17 && 17 < to ? 5 : 0,
        avg_response_time: ms(latencies.reduce((a, b) => a + b, 0) / latencies.length),
        max_response_time: ms(max),
      });
      for (const q of [50, 90, 95, 99])
        expect(row[`p${q}_response_time` as 'p95_response_time'], `p${q} of ${from}..${to}`).toBe(
          ms(Math.min(expected.getValueAtPercentile(q), max)),
        );
    }
  });

  it("sends the window's latency and failed rate in seconds, under their own names, and a slow window shows", () => {
    const { out } = reports();
    const fast = intervalSeries(windowRow(out, 0, 10), labels, 7);
    const slow = intervalSeries(windowRow(out, 12, 20), labels, 8);
    const of = (series: typeof fast, stat: string) =>
      series.find((s) => s.name === 'netops_http_req_duration_interval_seconds' && s.labels.stat === stat)!.value;
    expect(fast.filter((s) => s.name === 'netops_http_req_duration_interval_seconds').map((s) => s.labels)).toEqual(
      ['avg', 'p50', 'p90', 'p95', 'p99', 'max'].map((stat) => ({ ...labels, stat })),
    );
    expect(fast.every((s) => s.timestamp === 7)).toBe(true);
    expect(of(fast, 'max')).toBe(0.011);
    expect(of(fast, 'p95')).toBeCloseTo(0.011, 4);
    // Seconds 15 to 19 of 12 to 19 slow: the window's p50 is theirs, not diluted by the 15 fast seconds before.
    expect(of(slow, 'p50')).toBeGreaterThanOrEqual(0.2);
    expect(of(slow, 'p95')).toBeGreaterThanOrEqual(5 * of(fast, 'p95'));
    const failedRate = (series: typeof fast) =>
      series.find((s) => s.name === 'netops_http_req_failed_interval_rate')!.value;
    expect(failedRate(fast)).toBe(0);
    // 5 slow seconds with 4 failed answers of 10 each, and 5 connection errors: (20 + 5) / (80 + 5).
    expect(failedRate(slow)).toBe(25 / 85);
  });

  it('sends nothing for a window without an attempt, and no latency for one with connection errors only', () => {
    const { out } = reports();
    expect(intervalSeries(windowRow(out, 20, 30), labels, 1)).toEqual([]);
    const refused = new PerSecondCounts();
    refused.countSent(3);
    refused.countConnectionError(3);
    expect(intervalSeries(windowRow([refused.drain()], 0, 5), labels, 1)).toEqual([
      { name: 'netops_http_req_failed_interval_rate', labels, value: 1, timestamp: 1 },
    ]);
  });
});
