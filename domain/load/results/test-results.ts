// A load test's results as stored when it ends: every attempt's last snapshot and every report of
// seconds merged (../metrics/metrics.ts: finalResults; ../metrics/per-second.ts: mergeSeconds), each
// second's percentiles kept (../metrics/series.ts), and the verdict of a threshold that stopped it.
// Computed once, on a thread of its own (results-threads.ts): a test of an hour decodes tens of
// thousands of histograms.
import type { ShardSnapshot, SecondFigures } from '../../../lib/load/snapshot.ts';
import type { FinalResults, LoadThreshold, ShardSnapshotRow } from '../../../lib/jobs/load-test.ts';
import { finalResults } from '../metrics/metrics.ts';
import { mergeSeconds } from '../metrics/per-second.ts';
import { secondPercentiles } from '../metrics/series.ts';

/** What a test's results are computed from. */
export interface ResultsInput {
  /** Every attempt's last snapshot (db/load/load-test-shards.ts: readShardSnapshots, with phases). */
  rows: Array<ShardSnapshotRow<ShardSnapshot>>;
  /** Every report's seconds (readShardSeconds). */
  reports: SecondFigures[][];
  thresholds: LoadThreshold[];
  /** The aborting threshold that stopped the test, if one did. */
  abortedBy: string | null;
}

export async function testResults({ rows, reports, thresholds, abortedBy }: ResultsInput): Promise<FinalResults> {
  const seconds = mergeSeconds(reports);
  const results = finalResults(rows, seconds, thresholds);
  // Each second's percentiles, kept: the report and the dashboard draw them without merging again.
  const percentiles = await secondPercentiles(reports, seconds.length);
  Object.assign(results, {
    p50_response_time_per_second: percentiles.p50,
    p95_response_time_per_second: percentiles.p95,
    p99_response_time_per_second: percentiles.p99,
  });
  if (abortedBy) {
    // Stopped by its threshold: failed for it, unless the run tested nothing (that reason comes first).
    if (results.verdict_reason !== 'target_unreachable' && results.verdict !== 'failed')
      Object.assign(results, {
        verdict: 'failed',
        verdict_reason: 'thresholds',
        verdict_detail: `"${abortedBy}" did not hold and stopped the test`,
      });
    results.aborted_by = abortedBy;
  }
  return results;
}
