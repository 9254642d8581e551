// The totals of a test's shard snapshots added up, and the contract's live metrics made of them
// (metrics.ts merges the rest). `total` is the requests the target got (written on an open
// connection), the figure its own count equals; connection errors (the attempts that never got that
// far: refused, reset or timed out while connecting, TLS, DNS, the SSRF guard) are `connectionErrors`,
// apart from it, from the latencies and from the throughput, and counted as failures in `error_rate`
// (the share of attempts that failed, as k6's http_req_failed counts them).
import type { ShardSnapshot } from '../../../lib/load/snapshot.ts';
import type { LiveMetrics, ShardSnapshotRow } from '../../../lib/jobs/load-test.ts';

/**
 * Adds `from`'s counts into `into` and answers `into`. For-in rather than Object.entries, which allocates
 * a pair a key: a status poll adds every shard's counts (docs/benchmarks.md: what the API's thread keeps
 * past a scavenge).
 */
export function addCounts(
  into: Record<string, number>,
  from: Readonly<Record<string, number>>,
): Record<string, number> {
  for (const k in from) into[k] = (into[k] ?? 0) + (from[k] ?? 0);
  return into;
}

export const round2 = (n: number) => Math.round(n * 100) / 100;
export const ms = (us: number) => round2(us / 1000);

export interface Totals {
  total: number;
  successful: number;
  failed: number;
  connectionErrors: number;
  latencySumUs: number;
  bytesSent: number;
  bytesReceived: number;
  dropped: number;
  firstSentAt: number | null;
  lastAt: number | null;
}

export function totals(rows: Array<ShardSnapshotRow<ShardSnapshot>>): Totals {
  const t: Totals = {
    total: 0,
    successful: 0,
    failed: 0,
    connectionErrors: 0,
    latencySumUs: 0,
    bytesSent: 0,
    bytesReceived: 0,
    dropped: 0,
    firstSentAt: null,
    lastAt: null,
  };
  for (const { snapshot: s } of rows) {
    t.total += s.total;
    t.successful += s.successful;
    t.failed += s.failed;
    t.connectionErrors += s.connectionErrors ?? 0;
    t.latencySumUs += s.latencySumUs;
    t.bytesSent += s.bytesSent;
    t.bytesReceived += s.bytesReceived;
    t.dropped += s.dropped;
    if (s.firstSentAt !== null) t.firstSentAt = Math.min(t.firstSentAt ?? Infinity, s.firstSentAt);
    t.lastAt = Math.max(t.lastAt ?? 0, s.takenAt);
  }
  return t;
}

/** Failed attempts (requests that failed and connection errors) as a percentage of all attempts. */
export function errorRate(failed: number, requests: number, connectionErrors: number): number {
  const attempts = requests + connectionErrors;
  return attempts ? round2(((failed + connectionErrors) / attempts) * 100) : 0;
}

export function liveOf(t: Totals, durationMs: number): LiveMetrics {
  return {
    total_requests: t.total,
    successful_requests: t.successful,
    failed_requests: t.failed,
    avg_response_time: t.total ? ms(t.latencySumUs / t.total) : 0,
    throughput: durationMs > 0 ? round2(t.total / (durationMs / 1000)) : 0,
    error_rate: errorRate(t.failed, t.total, t.connectionErrors),
    connection_errors: t.connectionErrors,
  };
}
