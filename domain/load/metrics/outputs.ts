// What a load test's metrics outputs send (docs/load-testing.md "Outputs"): the merged figures of every
// shard at one moment as Prometheus series, with k6's names where they are the same figure
// (http_reqs_total, http_req_failed_rate, vus) and Prometheus's naming otherwise (units in the name;
// a statistic as a `stat` label where k6 puts it in the name), times in seconds. Latency is one gauge
// per statistic (avg, p50, p90, p95, p99, max) of the requests so far, not a histogram: the same
// figures the results give, so the last sample equals the results. A figure of the requests so far
// hardly moves late in a long test, so each write also carries the latency and failed rate of its
// interval alone (the requests sent in the seconds since the previous write, merged from the
// per-second histograms as the series endpoint merges them), under names of their own. Every series
// carries `test_id`, `target_host` and the test's tags.
import type { SecondFigures, ShardSnapshot } from '../../../lib/load/snapshot.ts';
import type { RemoteWriteSeries } from '../../../lib/prometheus-remote-write.ts';
import type { ShardSnapshotRow } from '../../../lib/jobs/load-test.ts';
import { mergedFigures } from './metrics.ts';
import { mergeSeconds } from './per-second.ts';
import { PHASES } from '../phases.ts';
import { type SeriesRow, seriesRows } from './series.ts';
import type { ThresholdMetric } from '../../../contract/load/threshold-words.ts';

/** The latency statistics sent, each a gauge of netops_http_req_duration_seconds and of its _interval_ twin. */
export const DURATION_STATS = ['avg', 'p50', 'p90', 'p95', 'p99', 'max'] as const;
/** The statistics of each phase sent (netops_http_req_phase_seconds). */
export const PHASE_OUTPUT_STATS = ['avg', 'p95'] as const;

/** Every metric name an output sends (the Grafana dashboard's queries use them). */
export const OUTPUT_METRICS = [
  'netops_http_reqs_total',
  'netops_http_req_failed_rate',
  'netops_http_req_duration_seconds',
  'netops_http_req_phase_seconds',
  'netops_http_responses_total',
  'netops_vus',
  'netops_data_sent_bytes_total',
  'netops_data_received_bytes_total',
  'netops_http_req_duration_interval_seconds',
  'netops_http_req_failed_interval_rate',
] as const;

type OutputMetric = (typeof OUTPUT_METRICS)[number];

const seriesAdder =
  (series: RemoteWriteSeries[], labels: Record<string, string>, timestamp: number) =>
  (name: OutputMetric, value: number, extra: Record<string, string> = {}) =>
    series.push({ name, labels: { ...labels, ...extra }, value, timestamp });

/**
 * The series of one moment: `now` for a running test (its figures so far), undefined for an ended
 * one (the results' own merge). `vus`: the users the test's profile has at that moment.
 */
export function outputSeries(
  rows: Array<ShardSnapshotRow<ShardSnapshot>>,
  labels: Record<string, string>,
  vus: number,
  timestamp: number,
  now?: number,
): RemoteWriteSeries[] {
  const m = mergedFigures(rows, now);
  const series: RemoteWriteSeries[] = [];
  const add = seriesAdder(series, labels, timestamp);
  add('netops_http_reqs_total', m.total);
  // Failed attempts, connection errors too (as k6's http_req_failed): the results' error_rate / 100.
  const attempts = m.total + m.connectionErrors;
  add('netops_http_req_failed_rate', attempts ? (m.failed + m.connectionErrors) / attempts : 0);
  for (const stat of DURATION_STATS)
    add('netops_http_req_duration_seconds', m.figures[stat as ThresholdMetric] / 1000, { stat });
  for (const phase of PHASES)
    for (const stat of PHASE_OUTPUT_STATS)
      add('netops_http_req_phase_seconds', m.figures[`${phase}.${stat}`] / 1000, { phase, stat });
  for (const [status, count] of Object.entries(m.statusCodes)) add('netops_http_responses_total', count, { status });
  add('netops_vus', vus);
  add('netops_data_sent_bytes_total', m.bytesSent);
  add('netops_data_received_bytes_total', m.bytesReceived);
  return series;
}

/**
 * Seconds [from, to) of a test (by the second a request was sent in) merged as one, from every
 * report of every shard and attempt: a series row of the whole window (series.ts), its percentiles
 * from the seconds' histograms added bucket by bucket.
 */
export function windowRow(reports: Iterable<readonly SecondFigures[]>, from: number, to: number): SeriesRow {
  const inWindow = [...reports].map((report) =>
    report.filter((f) => f.second >= from && f.second < to).map((f) => ({ ...f, second: 0 })),
  );
  return seriesRows(
    mergeSeconds(inWindow, () => true),
    0,
    0,
    1,
    () => 0,
  )[0]!;
}

/**
 * The series of one write's interval (`window`: windowRow's): its latency statistics and failed
 * rate. None for an interval without an attempt, and no latency for one without an answer: a
 * receiver then has no sample rather than a 0 that reads as fast.
 */
export function intervalSeries(
  window: SeriesRow,
  labels: Record<string, string>,
  timestamp: number,
): RemoteWriteSeries[] {
  const answered = Number(window.answered);
  const connectionErrors = Number(window.connection_errors);
  const series: RemoteWriteSeries[] = [];
  if (!answered && !connectionErrors) return series;
  const add = seriesAdder(series, labels, timestamp);
  // Of the attempts, as netops_http_req_failed_rate: an attempt that never connected failed too.
  add(
    'netops_http_req_failed_interval_rate',
    (Number(window.failed) + connectionErrors) / (answered + connectionErrors),
  );
  for (const stat of DURATION_STATS) {
    const ms = window[`${stat}_response_time`];
    if (answered && typeof ms === 'number') add('netops_http_req_duration_interval_seconds', ms / 1000, { stat });
  }
  return series;
}
