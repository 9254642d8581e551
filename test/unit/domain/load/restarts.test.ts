import { describe, expect, it } from 'vitest';
import { PerSecondCounts } from '../../../../domain/load/metrics/per-second.ts';
import { lostBy, shardRestarts } from '../../../../domain/load/restarts.ts';

/**
 * An attempt that sent `perSecond[s]` requests in each second s (its snapshot's `sending`, as the shard
 * counts it), all answered but those in flight.
 */
const attempt = (perSecond: number[], inFlight = 0, takenAt = 0) => {
  const counts = new PerSecondCounts();
  perSecond.forEach((n, second) => {
    for (let i = 0; i < n; i++) counts.countSent(second);
  });
  const sent = perSecond.reduce((a, b) => a + b, 0);
  return { sending: counts.sent(), inFlight, takenAt, total: sent - inFlight };
};

describe('shard restarts', () => {
  it('counts the seconds a shard sent nothing between a dead attempt and the next', () => {
    const rows = [
      // Shard 0: attempt 1 sent until second 7, attempt 2 from second 12: seconds 8 to 11 sent nothing.
      { shard: 0, attempt: 1, final: false, snapshot: attempt([100, 100, 100, 100, 100, 100, 100, 100, 0], 3) },
      { shard: 0, attempt: 2, final: true, snapshot: attempt([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 100]) },
      // Shard 1 never failed.
      { shard: 1, attempt: 1, final: true, snapshot: attempt([50, 50]) },
    ];
    expect(shardRestarts(rows)).toEqual([{ shard: 0, attempt: 2, seconds_without_traffic: 4, requests_lost: 103 }]);
  });

  it('is no restart while the last attempt runs, or when a shard failed for good', () => {
    expect(
      shardRestarts([
        { shard: 0, attempt: 1, final: false, snapshot: attempt([10]) },
        { shard: 1, attempt: 1, final: false, snapshot: attempt([10]) },
      ]),
    ).toEqual([]);
  });

  it('counts the rest of the window when the next attempt sent nothing (it came after the window)', () => {
    const windowed = (perSecond: number[], takenAt: number) => ({
      ...attempt(perSecond, 0, takenAt),
      windowSeconds: 10,
    });
    // Died at second 5 of 10: seconds 6 to 9 sent nothing.
    expect(
      shardRestarts([
        { shard: 0, attempt: 1, final: false, snapshot: windowed([5, 5, 5, 5, 5, 5], 6000) },
        { shard: 0, attempt: 2, final: true, snapshot: windowed([], 40_000) },
      ])[0]!.seconds_without_traffic,
    ).toBe(4);
    // Sent to the window's end and failed storing its end (a database blip): a restart that cost nothing.
    expect(
      shardRestarts([
        { shard: 0, attempt: 1, final: false, snapshot: windowed(new Array(10).fill(5), 10_000) },
        { shard: 0, attempt: 2, final: true, snapshot: windowed([], 12_000) },
      ])[0]!.seconds_without_traffic,
    ).toBe(0);
    // Snapshots from before the window was stored: the time between the two.
    expect(
      shardRestarts([
        { shard: 0, attempt: 1, final: false, snapshot: attempt([5, 5], 0, 10_000) },
        { shard: 0, attempt: 2, final: true, snapshot: attempt([], 0, 17_400) },
      ])[0]!.seconds_without_traffic,
    ).toBe(7);
  });

  it(
    'counts a superseded attempt (Temporal retried it while ' + 'it still sent) as a restart without a gap or a loss',
    () => {
      const rows = [
        { shard: 0, attempt: 1, final: true, snapshot: { ...attempt([10, 10, 10, 10]), superseded: true } },
        { shard: 0, attempt: 2, final: true, snapshot: attempt([0, 0, 0, 10, 10]) },
      ];
      expect(shardRestarts(rows)).toEqual([{ shard: 0, attempt: 2, seconds_without_traffic: 0, requests_lost: 0 }]);
    },
  );

  it(
    'estimates what a dead attempt sent after its last ' + 'snapshot from its last full second, without a newer count',
    () => {
      // The snapshot came early in second 2 (2 sent so far): a second at the pace of second 1.
      expect(lostBy({ snapshot: attempt([90, 80, 2], 4) })).toBe(84);
      expect(lostBy({ snapshot: attempt([], 0) })).toBe(0);
      // A count more than two intervals older than the snapshot says nothing of what came after it...
      expect(lostBy({ snapshot: attempt([90, 80, 2], 4, 5000), sent: { sent: 170, countedAt: 4700 } })).toBe(84);
      // ...one within two intervals does (the worker died before the next count was stored): the
      // snapshot's in-flight and the allowance.
      expect(lostBy({ snapshot: attempt([90, 80, 2], 4, 5000), sent: { sent: 170, countedAt: 4850 } })).toBe(4 + 16);
    },
  );

  it(
    'counts what a dead attempt sent since its last snapshot from its last count, give or take two count ' +
      'intervals',
    () => {
      // The snapshot at 5.0 s: 172 sent, 4 of them in flight, 168 answered, and 3 failed to connect.
      const snapshot = { ...attempt([90, 80, 2], 4, 5000), total: 165, connectionErrors: 3 };
      // Counted at 5.6 s: 47 more sent. Unanswered: the 4 and the 47; two tenths of a second at 80 a second: 16.
      expect(lostBy({ snapshot, sent: { sent: 219, countedAt: 5600 } })).toBe(4 + 47 + 16);
      // Counted as the snapshot was taken: its in-flight, and the allowance.
      expect(lostBy({ snapshot, sent: { sent: 172, countedAt: 5000 } })).toBe(4 + 16);
      // The restarts read it from the row.
      const rows = [
        { shard: 0, attempt: 1, final: false, snapshot, sent: { sent: 219, countedAt: 5600 } },
        { shard: 0, attempt: 2, final: true, snapshot: attempt([0, 0, 0, 0, 0, 0, 0, 0, 9]) },
      ];
      expect(shardRestarts(rows)[0]!.requests_lost).toBe(67);
    },
  );
});
