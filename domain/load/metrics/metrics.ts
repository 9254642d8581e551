// From shard snapshots to the contract's metrics. Histograms are merged exactly (bucket by bucket),
// never averaged; throughput is requests over the measured duration (first request sent to the last
// snapshot); times are milliseconds; error_rate is a percentage of attempts. Requests are those the
// target got; connection errors are counted beside them (totals.ts), and a run whose every attempt
// failed has the verdict failed, thresholds or not (verdict.ts).
import type { ShardSnapshot } from '../../../lib/load/snapshot.ts';
import type { ShardSnapshotRow } from '../../../lib/jobs/load-test.ts';
import type { FinalResults, LiveMetrics, LoadThreshold } from '../../../lib/jobs/load-test.ts';
import { newHistogram } from './histogram.ts';
import { decodeHistograms, type Histograms, keptHistograms } from './merged-histograms.ts';
import type { MergedSecond } from './per-second.ts';
import { lostBy, shardRestarts } from '../restarts.ts';
import { PHASE_STATS, PHASES, phaseStat, phaseSummary } from '../phases.ts';
import { mergeSteps } from '../scenario.ts';
import { mergeHttp2 } from './snapshot-merge.ts';
import { isPhaseMetric, PERCENTILES, type ThresholdMetric } from '../../../contract/load/threshold-words.ts';
import { evaluateThresholds } from './thresholds.ts';
import { addCounts, errorRate, liveOf, ms, round2, totals, type Totals } from './totals.ts';
import { runVerdict, unreachableDetail } from './verdict.ts';

/** Metrics while the test runs: every attempt's latest totals, throughput up to `now`. */
export function liveMetrics(rows: Array<ShardSnapshotRow<ShardSnapshot>>, now = Date.now()): LiveMetrics {
  const t = totals(rows);
  return liveOf(t, t.firstSentAt === null ? 0 : now - t.firstSentAt);
}

/**
 * Every attempt's histograms, status codes and errors merged exactly, with the lost attempts counted;
 * the latency histograms only when asked for (a decode a snapshot), the phases' too (five more).
 */
function merge(
  rows: Array<ShardSnapshotRow<ShardSnapshot>>,
  { latency = true, phases = true } = {},
  histograms: Histograms = decodeHistograms,
) {
  const snapshots = rows.map((r) => r.snapshot);
  const merged = histograms(snapshots, { latency, phases });
  const statusCodes: Record<string, number> = {};
  const errors: Record<string, number> = {};
  let shardFailures = 0;
  let lost = 0;
  for (const row of rows) {
    const { snapshot: s, final } = row;
    addCounts(statusCodes, s.statusCodes);
    addCounts(errors, s.errors);
    if (!final) {
      shardFailures += 1;
      lost += lostBy(row);
    }
  }
  const restarts = shardRestarts(rows);
  return {
    protocols: snapshots.some((s) => s.protocols)
      ? snapshots.reduce((into, s) => addCounts(into, s.protocols ?? {}), {} as Record<string, number>)
      : null,
    http2: mergeHttp2(snapshots),
    histogram: merged.histogram,
    statusCodes,
    errors,
    shardFailures,
    lost,
    restarts,
    phases: merged.phases,
  };
}

/**
 * The figures thresholds read (thresholds.ts), from the same merge and rounding as the results; with
 * `wanted`, the latency histogram's figures (percentiles, min, max) and the phases' only of those
 * metrics (the others are cheap and all there).
 */
function figuresOf(
  t: Totals,
  m: ReturnType<typeof merge>,
  durationMs: number,
  wanted?: ReadonlySet<ThresholdMetric>,
): Record<ThresholdMetric, number> {
  const live = liveOf(t, durationMs);
  const h = m.histogram;
  const fiveXx = Object.entries(m.statusCodes).reduce((n, [code, count]) => n + (code.startsWith('5') ? count : 0), 0);
  const figures = {
    avg: live.avg_response_time,
    error_rate: live.error_rate,
    throughput: live.throughput,
    status_5xx_rate: t.total ? round2((fiveXx / t.total) * 100) : 0,
    total_requests: t.total,
    connection_errors: t.connectionErrors,
    shard_restarts: m.restarts.length,
    seconds_without_traffic: Math.max(0, ...m.restarts.map((r) => r.seconds_without_traffic)),
  } as Record<ThresholdMetric, number>;
  const asked = (metric: ThresholdMetric) => !wanted || wanted.has(metric);
  if (asked('min')) figures.min = h.totalCount ? ms(h.minNonZeroValue) : 0;
  if (asked('max')) figures.max = h.totalCount ? ms(h.maxValue) : 0;
  for (const [metric, q] of Object.entries(PERCENTILES))
    if (asked(metric as ThresholdMetric))
      figures[metric as ThresholdMetric] = h.totalCount ? ms(h.getValueAtPercentile(q)) : 0;
  for (const phase of PHASES) {
    for (const stat of Object.keys(PHASE_STATS) as Array<keyof typeof PHASE_STATS>)
      if (asked(`${phase}.${stat}`)) figures[`${phase}.${stat}`] = m.phases ? phaseStat(m.phases[phase], stat) : 0;
  }
  return figures;
}

/** The figures read from the merged latency histogram. */
const LATENCY_METRICS: ReadonlySet<ThresholdMetric> = new Set([
  'min',
  'max',
  ...(Object.keys(PERCENTILES) as ThresholdMetric[]),
]);

const finalDuration = (t: Totals) => (t.firstSentAt === null || t.lastAt === null ? 0 : t.lastAt - t.firstSentAt);

const durationOf = (t: Totals, now?: number) =>
  now === undefined ? finalDuration(t) : t.firstSentAt === null ? 0 : now - t.firstSentAt;

/**
 * One merge and its figures: every metric, or with `wanted` only those metrics' histogram figures
 * (the latency histograms are decoded only when one of them needs it, the phases' when one names a phase).
 */
function mergeFigures(
  rows: Array<ShardSnapshotRow<ShardSnapshot>>,
  now?: number,
  wanted?: readonly ThresholdMetric[],
  histograms: Histograms = decodeHistograms,
) {
  const t = totals(rows);
  const asked = wanted && new Set(wanted);
  const m = merge(
    rows,
    {
      latency: !asked || [...asked].some((metric) => LATENCY_METRICS.has(metric)),
      phases: !asked || [...asked].some(isPhaseMetric),
    },
    histograms,
  );
  return { t, m, figures: figuresOf(t, m, durationOf(t, now), asked) };
}

/**
 * The threshold figures of a running test (throughput up to `now`), or of an ended one (`now`
 * omitted); with `wanted`, only those metrics' histogram figures (a status poll asks for its p95 and
 * its thresholds' metrics; the threshold watch only its thresholds', so an error rate's threshold
 * decodes no histogram at all).
 */
export function thresholdFigures(
  rows: Array<ShardSnapshotRow<ShardSnapshot>>,
  now?: number,
  wanted?: readonly ThresholdMetric[],
): Record<ThresholdMetric, number> {
  return mergeFigures(rows, now, wanted, keptHistograms).figures;
}

/**
 * The threshold figures (as thresholdFigures) with the totals and counts of the same merge: what a
 * metrics output sends (domain/load/metrics/outputs.ts).
 */
export function mergedFigures(rows: Array<ShardSnapshotRow<ShardSnapshot>>, now?: number) {
  const { t, m, figures } = mergeFigures(rows, now);
  return {
    total: t.total,
    failed: t.failed,
    connectionErrors: t.connectionErrors,
    bytesSent: t.bytesSent,
    bytesReceived: t.bytesReceived,
    statusCodes: m.statusCodes,
    errors: m.errors,
    figures,
  };
}

/**
 * The results from every attempt's last snapshot and every second's figures merged (per-second.ts:
 * mergeSeconds), with each threshold's outcome read from the same merge (thresholds.ts).
 */
export function finalResults(
  rows: Array<ShardSnapshotRow<ShardSnapshot>>,
  seconds: readonly MergedSecond[],
  thresholds: readonly LoadThreshold[] = [],
): FinalResults {
  const { t, m, figures: f } = mergeFigures(rows);
  const durationMs = finalDuration(t);
  const outcomes = thresholds.length ? evaluateThresholds(thresholds, f) : null;
  const verdict = runVerdict(outcomes, unreachableDetail(t, m.errors, m.statusCodes));
  return {
    ...liveOf(t, durationMs),
    total_bytes_sent: t.bytesSent,
    total_bytes_received: t.bytesReceived,
    min_response_time: f.min,
    max_response_time: f.max,
    p50_response_time: f.p50,
    p75_response_time: f.p75,
    p90_response_time: f.p90,
    p95_response_time: f.p95,
    p99_response_time: f.p99,
    duration_seconds: round2(durationMs / 1000),
    status_codes: m.statusCodes,
    errors: m.errors,
    dropped_requests: t.dropped,
    shard_failures: m.shardFailures,
    requests_lost: m.lost,
    shard_restarts: f.shard_restarts,
    seconds_without_traffic: f.seconds_without_traffic,
    ...(m.restarts.length ? { restarts: m.restarts } : {}),
    requests_per_second: seconds.map((s) => s.sent),
    error_rate_per_second: seconds.map((s) => errorRate(s.failed, s.answered, s.connectionErrors)),
    avg_response_time_per_second: seconds.map((s) => (s.answered ? ms(s.latencySumUs / s.answered) : 0)),
    max_response_time_per_second: seconds.map((s) => ms(s.latencyMaxUs)),
    errors_per_second: seconds.map((s) => s.failed + s.connectionErrors),
    ...(m.protocols ? { protocols: m.protocols } : {}),
    ...(m.http2
      ? { http2: { connections: m.http2.connections, server_max_concurrent_streams: m.http2.serverMaxStreams } }
      : {}),
    ...(m.phases ? { phases: phaseSummary(m.phases) } : {}),
    ...(rows.some((r) => r.snapshot.steps) ? { steps: mergeSteps(rows.map((r) => r.snapshot)) } : {}),
    ...(outcomes ? { thresholds: outcomes } : {}),
    ...verdict,
  };
}

/** One point of a live chart: what happened between the previous look and this one. */
export interface IntervalPoint {
  at: number;
  requests_per_second: number;
  error_rate: number;
  p50_response_time: number;
  p95_response_time: number;
  p99_response_time: number;
}

/**
 * Follows a running test for a chart: each call merges the shards' cumulative histograms and
 * subtracts the previous merge, so the percentiles are those of the last interval, not since start.
 */
export function intervalTracker() {
  let previous: ReturnType<typeof newHistogram> | null = null;
  let prevTotal = 0;
  let prevFailed = 0;
  let prevConnectionErrors = 0;
  let prevAt: number | null = null;
  return (rows: Array<ShardSnapshotRow<ShardSnapshot>>, now = Date.now()): IntervalPoint | null => {
    const t = totals(rows);
    // Shared with the status polls and the other charts of the same test while no shard has reported since.
    const merged = keptHistograms(
      rows.map((r) => r.snapshot),
      { latency: true, phases: false },
    ).histogram;
    const interval = newHistogram();
    interval.add(merged);
    if (previous) interval.subtract(previous);
    const requests = t.total - prevTotal;
    const failed = t.failed - prevFailed;
    const connectionErrors = t.connectionErrors - prevConnectionErrors;
    const seconds =
      prevAt === null ? (t.firstSentAt === null ? 0 : (now - t.firstSentAt) / 1000) : (now - prevAt) / 1000;
    previous = merged;
    prevTotal = t.total;
    prevFailed = t.failed;
    prevConnectionErrors = t.connectionErrors;
    prevAt = now;
    if (seconds <= 0 || requests < 0) return null;
    const p = (q: number) => (interval.totalCount ? ms(interval.getValueAtPercentile(q)) : 0);
    return {
      at: now,
      requests_per_second: round2(requests / seconds),
      error_rate: errorRate(failed, requests, connectionErrors),
      p50_response_time: p(50),
      p95_response_time: p(95),
      p99_response_time: p(99),
    };
  };
}
