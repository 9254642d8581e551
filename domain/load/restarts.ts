// What a lost load worker cost a test, from the shards' attempts: an attempt that never stored its
// final snapshot died with its worker (or failed) and, when a later attempt of the same shard exists,
// was restarted; so was one that stopped because a later attempt had started (superseded). The gap is counted in whole
// seconds of the test (the per-second index of what was
// sent) from the dead attempt's last second with a request to the next attempt's first; what the dead
// attempt sent that no stored snapshot answered is counted lost, from its last count of what it sent.
import type { Sending } from '../../lib/load/snapshot.ts';
import type { ShardSnapshotRow } from '../../lib/jobs/load-test.ts';

interface Attempt {
  /** Of the requests it sent, those its snapshot counted answered, and its connection errors. */
  total: number;
  connectionErrors?: number;
  /** The seconds it sent in and its last pace (absent or null: it sent nothing). */
  sending?: Sending | null;
  inFlight: number;
  takenAt: number;
  /** The test window's length in seconds (snapshots written before it was recorded lack it). */
  windowSeconds?: number;
  /** It ended because a later attempt had started (it was not lost: Temporal gave up on it too soon). */
  superseded?: boolean;
}

export interface ShardRestart {
  shard: number;
  /** The attempt that took over (2 for the first retry). */
  attempt: number;
  seconds_without_traffic: number;
  /** Requests of the dead attempt the target may have seen and no snapshot counted. */
  requests_lost: number;
}

/** How often a shard attempt counts what it sent (activities/load: a checkpoint between its reports). */
export const SENT_COUNT_EVERY_MS = 100;

/**
 * What a dead attempt sent that no snapshot counted answered: from its last count of what it sent (the
 * requests written, or their connections being opened), less those its last snapshot counted answered
 * or failed to connect (at least what that snapshot had in flight), plus what it may have sent in the
 * two count intervals after that count (the next count never came; one may come late). A count taken
 * up to two intervals before the snapshot serves as well (the worker died before the next one was
 * stored); without one (a test of many shards counts none; counts not stored, or none sent for a
 * while), what it had in flight and a second at its last pace.
 */
export function lostBy(row: Pick<ShardSnapshotRow<Attempt>, 'snapshot' | 'sent'>): number {
  const a = row.snapshot;
  const pace = a.sending?.pace ?? 0;
  const count = row.sent;
  if (!count || count.countedAt < a.takenAt - 2 * SENT_COUNT_EVERY_MS) return a.inFlight + pace;
  const unanswered = count.sent - a.total - (a.connectionErrors ?? 0);
  return Math.max(a.inFlight, unanswered) + Math.ceil((pace * 2 * SENT_COUNT_EVERY_MS) / 1000);
}

/** Seconds of the test window in which a shard sent nothing between `dead` and the attempt after it. */
function gapSeconds(dead: Attempt, next: Attempt): number {
  const from = dead.sending?.last ?? -1;
  const window = dead.windowSeconds ?? Number.POSITIVE_INFINITY;
  let to = next.sending?.first ?? -1;
  if (to < 0) {
    // The next attempt sent nothing (it came after the window): the rest of the window, when known.
    if (dead.windowSeconds === undefined) return Math.max(0, Math.round((next.takenAt - dead.takenAt) / 1000));
    to = window;
  }
  return Math.max(0, Math.min(to, window) - from - 1);
}

/** Every restart of every shard, in shard and attempt order (rows as readShardSnapshots orders them). */
export function shardRestarts(rows: ReadonlyArray<ShardSnapshotRow<Attempt>>): ShardRestart[] {
  const restarts: ShardRestart[] = [];
  rows.forEach((row, i) => {
    const next = rows[i + 1];
    if ((row.final && !row.snapshot.superseded) || !next || next.shard !== row.shard) return;
    restarts.push({
      shard: row.shard,
      attempt: next.attempt,
      seconds_without_traffic: gapSeconds(row.snapshot, next.snapshot),
      requests_lost: row.final ? 0 : lostBy(row),
    });
  });
  return restarts;
}
