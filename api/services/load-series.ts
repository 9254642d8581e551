// A load test's per-second series (domain/load/series.ts) as a live stream: each second's row once its
// figures are final, while the test runs; every row at once after its end. A row sent is never sent
// again, so a second waits until every request sent in it is answered, or until every shard has
// reported past the longest an answer may take.
import type { Kysely } from 'kysely';
import { readShardSeconds, readShardSnapshots } from '../../db/load-test-shards.ts';
import type { Database } from '../../db/schema.ts';
import { type MergedSecond, mergeSeconds } from '../../domain/load/per-second.ts';
import { profileOf, usersAt } from '../../domain/load/profile.ts';
import { seriesRows } from '../../domain/load/series.ts';
import { END_GRACE_MS, REQUEST_TIMEOUT_MS } from '../../domain/load/shard.ts';
import type { SseTick } from '../sse.ts';
import type { LoadTestService } from './load-tests.ts';

/** A second is over for the series once every shard has reported this long past its end (a request due then may still be queued). */
const SECOND_OVER_MS = 1000;

export function loadSeriesService({
  db,
  loadTests,
}: {
  db: Kysely<Database>;
  loadTests: Pick<LoadTestService, 'owned' | 'state'>;
}) {
  return {
    /** The series of the caller's test from second `from` on, as stream ticks: the rows not sent yet, ending with the test. */
    stream(testId: string, userId: number, from = 0): () => Promise<SseTick> {
      let next = from;
      return async () => {
        const row = await loadTests.owned(testId, userId);
        // A pending row is read through the workflow (which tells a test no worker ever took).
        const { status } = await loadTests.state(row);
        const ended = status !== 'pending' && status !== 'running';
        if (!row.startedAt) return { events: [], done: ended };
        const startAt = row.startedAt.getTime();
        const from = next;
        // The snapshots first: a report stored after them only adds seconds, never makes a second
        // look final that the seconds read next do not hold in full (each report writes both at once).
        const snapshots = ended ? [] : await readShardSnapshots(db, testId);
        // Only the reports that reach the rows not sent yet; their counts say which seconds are final,
        // and only those seconds' histograms are decoded (an unsettled second's, again at each tick, were not).
        const reports = await readShardSeconds(db, testId, from);
        const counted = mergeSeconds(reports);
        const to = ended ? counted.length : from + finalCount(counted, from, snapshots, startAt);
        const seconds = to > from ? mergeSeconds(reports, (s) => s >= from && s < to) : counted;
        const profile = profileOf(row.config);
        const sent = seriesRows(seconds, startAt, from, to, (s) => usersAt(profile, s * 1000 + 500));
        next += sent.length;
        const events = sent.map((data) => ({ event: 'second', data }));
        return { events, done: ended };
      };
    },
  };
}

/**
 * While the test runs: how many of the seconds from `from` on are final. None before every shard has
 * reported (the count each stores); then each second over for every shard whose requests have all
 * been answered, or that is older than the longest an answer may take.
 */
function finalCount(
  seconds: readonly MergedSecond[],
  from: number,
  rows: Awaited<ReturnType<typeof readShardSnapshots>>,
  startAt: number,
): number {
  const latest = new Map<number, number>();
  for (const r of rows) latest.set(r.shard, Math.max(latest.get(r.shard) ?? 0, r.snapshot.takenAt));
  const shards = Math.max(0, ...rows.map((r) => r.snapshot.shards ?? 0));
  if (!latest.size || latest.size < shards) return 0;
  const seen = Math.min(...latest.values());
  const over = Math.floor((seen - SECOND_OVER_MS - startAt) / 1000);
  const settled = Math.floor((seen - SECOND_OVER_MS - REQUEST_TIMEOUT_MS - END_GRACE_MS - startAt) / 1000);
  let second = from;
  // A second no report holds yet counts as nothing sent, nothing answered (seriesRows gives it zeros).
  for (; second < seconds.length; second++) {
    const s = seconds[second]!;
    if (second >= over || (s.answered !== s.sent && second >= settled)) break;
  }
  return second - from;
}

export type LoadSeriesService = ReturnType<typeof loadSeriesService>;
