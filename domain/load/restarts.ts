// What a lost load worker cost a test, from the shards' attempts: an attempt that never stored its
// final snapshot died with its worker (or failed) and, when a later attempt of the same shard exists,
// was restarted; so was one that stopped because a later attempt had started (superseded). The gap is counted in whole seconds of the test (the per-second index of what was
// sent) from the dead attempt's last second with a request to the next attempt's first; what the dead
// attempt may have sent after its last stored snapshot is counted lost, with what it had in flight.
import type { ShardSnapshotRow } from '../../lib/jobs/load-test.ts';
import type { Sending } from './per-second.ts';

interface Attempt {
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

/**
 * An upper estimate of what a dead attempt sent that no snapshot counted: what it had in flight at its
 * last snapshot, and a second at its last pace (the next snapshot, a second later, never came).
 */
export function lostBy(a: Attempt): number {
  return a.inFlight + (a.sending?.pace ?? 0);
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
      requests_lost: row.final ? 0 : lostBy(row.snapshot),
    });
  });
  return restarts;
}
