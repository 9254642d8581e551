// A shard's snapshot as the unit tests of the merges give it: latencies (ms) recorded in its histogram,
// counts and the latency sum from them; `over` sets the rest (failures, times, status codes, bytes).
import type { ShardSnapshot } from '../../lib/load/snapshot.ts';
import hdr from 'hdr-histogram-js';
import { newHistogram } from '../../domain/load/metrics/histogram.ts';

export function shardSnapshot(latenciesMs: number[], over: Partial<ShardSnapshot> = {}): ShardSnapshot {
  const h = newHistogram();
  for (const l of latenciesMs) h.recordValue(l * 1000);
  const failed = over.failed ?? 0;
  return {
    total: latenciesMs.length,
    successful: latenciesMs.length - failed,
    failed,
    bytesSent: 0,
    bytesReceived: 0,
    latencySumUs: latenciesMs.reduce((a, b) => a + b, 0) * 1000,
    histogram: hdr.encodeIntoCompressedBase64(h),
    statusCodes: {},
    errors: {},
    inFlight: 0,
    dropped: 0,
    firstSentAt: null,
    takenAt: 0,
    ...over,
  };
}

/** The snapshot as its database row gives it to the merges. */
export const snapshotRow = (snapshot: ShardSnapshot, final = false) =>
  ({ testId: 't', shard: 0, attempt: 1, snapshot, final, updatedAt: new Date() }) as never;
