// What an output sends: every series named and labelled, the latency gauges in seconds equal to the
// results' own figures once ended, counts per status; the users a profile has at a moment.
import { describe, expect, it } from 'vitest';
import type { ShardSnapshot } from '../../../../domain/load/generator.ts';
import { shardSnapshot, snapshotRow } from '../../../support/snapshots.ts';
import { finalResults } from '../../../../domain/load/metrics.ts';
import { OUTPUT_METRICS, outputSeries } from '../../../../domain/load/outputs.ts';

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
    expect(new Set(series.map((s) => s.name))).toEqual(new Set(OUTPUT_METRICS));
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
