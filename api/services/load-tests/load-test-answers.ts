// The answers about a load test, assembled from what the service read: its status (live totals and
// thresholds from the shards' snapshots while it runs, the stored results once ended), its results, the list.
import type { ShardSnapshot } from '../../../lib/load/snapshot.ts';
import { liveMetrics, thresholdFigures } from '../../../domain/load/metrics/metrics.ts';
import { parseThreshold, type Threshold } from '../../../contract/load/thresholds.ts';
import { evaluateThresholds } from '../../../domain/load/metrics/thresholds.ts';
import type { ShardSnapshotRow } from '../../../db/load/load-test-shards.ts';
import type { LoadTestRow } from '../../../db/load/load-tests.ts';
import type { FinalResults, LoadTestState } from '../../../lib/jobs/load-test.ts';

export const iso = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);

/** The status answer of `row` in `state`, from its shards' snapshots (`rows`, none once ended) at `now`. */
export function statusAnswer(
  row: LoadTestRow,
  state: LoadTestState,
  rows: Array<ShardSnapshotRow<ShardSnapshot>>,
  now: number,
) {
  // The merged histograms so far (for the live p95 and the thresholds' metrics only: a poll merges no
  // phase unless a threshold names one); the stored results once ended. No figures before the first
  // answer: an attempt's row exists from its start, with nothing in it yet.
  const parsed = row.config.thresholds.map(parseThreshold).filter((t): t is Threshold => typeof t !== 'string');
  const figures =
    state.results || !rows.some((r) => r.snapshot.total + (r.snapshot.connectionErrors ?? 0) > 0)
      ? null
      : thresholdFigures(rows, now, ['p95', ...parsed.map((t) => t.metric)]);
  const metrics = state.results
    ? pick(state.results, [
        'total_requests',
        'successful_requests',
        'failed_requests',
        'avg_response_time',
        'throughput',
        'error_rate',
        'connection_errors',
        'p95_response_time',
      ])
    : { ...liveMetrics(rows, now), p95_response_time: figures?.p95 ?? 0 };
  // Live pass/fail on the merged totals so far; the verdict once ended (with thresholds or without:
  // a run whose every attempt failed has one, verdict.ts).
  const thresholds = state.results
    ? state.results.thresholds
    : figures && parsed.length
      ? evaluateThresholds(parsed, figures)
      : undefined;
  const span = state.startAt !== null && state.endAt !== null ? state.endAt - state.startAt : 0;
  const until = state.completedAt ?? now;
  const progress =
    state.status === 'completed'
      ? 100
      : span > 0 && state.startAt !== null
        ? Math.max(0, Math.min(100, Math.floor(((until - state.startAt) / span) * 100)))
        : 0;
  return {
    success: true,
    test_id: row.id,
    status: state.status,
    progress,
    metrics,
    started_at: iso(state.startAt),
    estimated_completion: iso(state.endAt),
    completed_at: iso(state.completedAt),
    stop_requested: state.stopRequested,
    ...(state.failureReason ? { failure_reason: state.failureReason } : {}),
    ...(thresholds?.length ? { thresholds } : {}),
    ...(state.results ? verdictFields(state.results) : {}),
    ...outputsOf(row),
    config: row.config,
  };
}

/** Each metrics output and how it fares (its sender's state), when the test has outputs. */
function outputsOf(row: LoadTestRow) {
  const outputs = row.config.outputs;
  if (!outputs?.length) return {};
  return {
    outputs: outputs.map((o, i) => {
      if (o.type !== 'prometheus_remote_write')
        return { type: o.type, url: `/api/v1/load-testing/series/${row.id}?format=${o.type}` };
      const state = row.outputs?.[i] ?? { writes: 0, errors: 0, last_error: null, last_write_at: null };
      return { type: o.type, url: o.url, interval_seconds: o.interval_seconds, ...state };
    }),
  };
}

/** The results answer of an ended test's row. */
export function resultsAnswer(row: LoadTestRow) {
  return {
    success: true,
    test_id: row.id,
    status: row.status,
    results: row.results,
    started_at: iso(row.startedAt?.getTime()),
    completed_at: iso(row.completedAt?.getTime()),
    ...(row.failureReason ? { failure_reason: row.failureReason } : {}),
    ...outputsOf(row),
    config: row.config,
  };
}

/** The history answer: each test with a summary of its results once it has them. */
export function listAnswer(rows: LoadTestRow[]) {
  return {
    success: true,
    data: {
      total: rows.length,
      tests: rows.map((r) => ({
        test_id: r.id,
        status: r.status,
        config: r.config,
        created_at: r.createdAt.toISOString(),
        started_at: iso(r.startedAt?.getTime()),
        completed_at: iso(r.completedAt?.getTime()),
        summary: r.results
          ? pick(r.results, [
              'total_requests',
              'error_rate',
              'throughput',
              'p95_response_time',
              'verdict',
              'verdict_reason',
              'connection_errors',
            ])
          : null,
      })),
    },
  };
}

export function pick<T extends object>(from: T, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, (from as Record<string, unknown>)[k]]));
}

/** The verdict of `r` and, when it failed, why (absent fields left out). */
function verdictFields(r: FinalResults) {
  return {
    ...(r.verdict ? { verdict: r.verdict } : {}),
    ...(r.verdict_reason ? { verdict_reason: r.verdict_reason } : {}),
    ...(r.verdict_detail ? { verdict_detail: r.verdict_detail } : {}),
  };
}
