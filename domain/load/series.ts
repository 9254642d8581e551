// A load test's per-second series, as the series endpoint streams it: for each second of the test
// (by the second a request was sent in, since the load's start), the requests sent, the answers to
// them, how many failed, their mean and slowest latency. Merged exactly across shards and attempts
// (per-second.ts); per-second percentiles would need a histogram per second, which the shards do not keep.
import type { ShardSnapshot } from './shard.ts';
import { mergePerSecond } from './per-second.ts';

export const SERIES_COLUMNS = [
  'second',
  'time',
  'requests',
  'answered',
  'failed',
  'error_rate',
  'avg_response_time',
  'max_response_time',
] as const;

export type SeriesRow = Record<(typeof SERIES_COLUMNS)[number], number | string>;

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The rows of seconds [from, to) of a test that started at `startAt` (epoch ms), from its shards' snapshots. */
export function seriesRows(
  snapshots: readonly ShardSnapshot[],
  startAt: number,
  from: number,
  to: number,
): SeriesRow[] {
  const { sent, answers: a } = mergePerSecond([...snapshots]);
  const rows: SeriesRow[] = [];
  for (let s = from; s < to; s += 1) {
    const answered = a.answered[s] ?? 0;
    const failed = a.failed[s] ?? 0;
    rows.push({
      second: s,
      time: new Date(startAt + s * 1000).toISOString(),
      requests: sent[s] ?? 0,
      answered,
      failed,
      error_rate: answered ? round2((failed / answered) * 100) : 0,
      avg_response_time: answered ? round2((a.latencySumUs[s] ?? 0) / answered / 1000) : 0,
      max_response_time: round2((a.latencyMaxUs[s] ?? 0) / 1000),
    });
  }
  return rows;
}

/** The seconds the snapshots hold any request in (the length of the longest per-second series). */
export const secondsIn = (snapshots: readonly ShardSnapshot[]): number =>
  Math.max(0, ...snapshots.map((s) => s.perSecond.length));
