// A load test's per-second series (domain/load/metrics/series.ts) as a live stream: each second's row once its
// figures are final, while the test runs; every row at once after its end. A row sent is never sent
// again, so a second waits until every request sent in it is answered, or until every shard has
// reported past the longest an answer may take.
import type { Kysely } from 'kysely';
import { readShardSeconds, readShardSnapshots } from '../../../db/load/load-test-shards.ts';
import type { Database } from '../../../db/schema.ts';
import { mergeSeconds } from '../../../domain/load/metrics/per-second.ts';
import { profileOf, usersAt } from '../../../domain/load/profile.ts';
import { seriesRows, settledSeconds } from '../../../domain/load/metrics/series.ts';
import type { SseTick } from '../../sse.ts';
import type { LoadTestService } from './load-tests.ts';

export function loadSeriesService({
  db,
  loadTests,
}: {
  db: Kysely<Database>;
  loadTests: Pick<LoadTestService, 'owned' | 'state'>;
}) {
  return {
    /**
     * The series of the caller's test from second `from` on, as stream ticks: the rows not sent yet,
     * ending with the test.
     */
    stream(testId: string, userId: number, from = 0): () => Promise<SseTick> {
      let next = from;
      return async () => {
        const row = await loadTests.owned(testId, userId);
        // A pending row also asks the Temporal server (which tells a test no worker ever took).
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
        const to = ended ? counted.length : from + settledSeconds(counted, from, snapshots, startAt);
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
