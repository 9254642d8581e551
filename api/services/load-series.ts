// A load test's per-second series (domain/load/series.ts) as a live stream: each second's row once it
// is over and the shards have reported past it, while the test runs; every row at once after its end.
import type { Kysely } from 'kysely';
import { readShardSnapshots } from '../../db/load-tests.ts';
import type { Database } from '../../db/schema.ts';
import { secondsIn, seriesRows } from '../../domain/load/series.ts';
import type { SseTick } from '../sse.ts';
import type { LoadTestService } from './load-tests.ts';

/** A second's row is sent once every shard has reported this long past its end (its answers mostly in). */
const ANSWER_GRACE_MS = 1000;

export function loadSeriesService({
  db,
  loadTests,
}: {
  db: Kysely<Database>;
  loadTests: Pick<LoadTestService, 'owned'>;
}) {
  return {
    /** The series of the caller's test as stream ticks: the rows not sent yet, ending with the test. */
    stream(testId: string, userId: number): () => Promise<SseTick> {
      let next = 0;
      return async () => {
        const row = await loadTests.owned(testId, userId);
        const ended = row.status !== 'pending' && row.status !== 'running';
        if (!row.startedAt) return { events: [], done: ended };
        const rows = await readShardSnapshots(db, testId);
        const snapshots = rows.map((r) => r.snapshot);
        let upTo = secondsIn(snapshots);
        if (!ended) {
          // Each shard's latest report, the oldest of them: the seconds over by then, less the grace.
          const latest = new Map<number, number>();
          for (const r of rows) latest.set(r.shard, Math.max(latest.get(r.shard) ?? 0, r.snapshot.takenAt));
          const seen = latest.size ? Math.min(...latest.values()) : 0;
          upTo = Math.min(upTo, Math.floor((seen - ANSWER_GRACE_MS - row.startedAt.getTime()) / 1000));
        }
        const events =
          upTo > next
            ? seriesRows(snapshots, row.startedAt.getTime(), next, upTo).map((data) => ({ event: 'second', data }))
            : [];
        next = Math.max(next, upTo);
        return { events, done: ended };
      };
    },
  };
}

export type LoadSeriesService = ReturnType<typeof loadSeriesService>;
