// The live chart's points: rate, errors and percentiles of the last interval, not since the start.
import { describe, expect, it } from 'vitest';
import type { ShardSnapshot } from '../../../../domain/load/generator.ts';
import { shardSnapshot, snapshotRow } from '../../../support/snapshots.ts';
import { finalResults, intervalTracker } from '../../../../domain/load/metrics.ts';

const snapshot = (latenciesMs: number[], failed: number, firstSentAt: number, takenAt: number) =>
  shardSnapshot(latenciesMs, { failed, firstSentAt, takenAt });
const row = (s: ShardSnapshot) => snapshotRow(s);

describe('intervalTracker', () => {
  it('gives the percentiles and rate of each interval', () => {
    const track = intervalTracker();
    const t0 = 1_000_000;
    const fast = Array.from({ length: 100 }, () => 10);
    const first = track([row(snapshot(fast, 0, t0, t0 + 1000))], t0 + 1000)!;
    expect(first).toMatchObject({ requests_per_second: 100, error_rate: 0 });
    expect(first.p50_response_time).toBeCloseTo(10, 0);

    // The next second is slow and half fails: its point says so, whatever came before.
    const slow = Array.from({ length: 50 }, () => 200);
    const second = track([row(snapshot([...fast, ...slow], 25, t0, t0 + 2000))], t0 + 2000)!;
    expect(second.requests_per_second).toBe(50);
    expect(second.error_rate).toBe(50);
    expect(second.p50_response_time).toBeCloseTo(200, -1);
    expect(second.p99_response_time).toBeCloseTo(200, -1);
  });

  it('has no point before anything was sent', () => {
    expect(intervalTracker()([], 5)).toBeNull();
  });
});

describe('finalResults per second', () => {
  it("merges each second's answers across shards exactly: failures, mean and slowest latency", () => {
    const shard = (perSecond: number[], seconds: NonNullable<ShardSnapshot['seconds']>): ShardSnapshot => ({
      ...snapshot([], 0, 1000, 4000),
      perSecond,
      seconds,
    });
    const a = shard([2, 2], {
      answered: [2, 2],
      failed: [0, 1],
      latencySumUs: [20_000, 300_000],
      latencyMaxUs: [12_000, 250_000],
    });
    const b = shard([2, 0, 1], {
      answered: [2, 0, 1],
      failed: [2, 0, 0],
      latencySumUs: [60_000, 0, 5_000],
      latencyMaxUs: [40_000, 0, 5_000],
    });
    const r = finalResults([row(a), row(b)]);
    expect(r.requests_per_second).toEqual([4, 2, 1]);
    expect(r.error_rate_per_second).toEqual([50, 50, 0]);
    expect(r.avg_response_time_per_second).toEqual([20, 150, 5]);
    expect(r.max_response_time_per_second).toEqual([40, 250, 5]);
    // A snapshot written before the per-second answers existed still merges (its seconds count as unanswered).
    expect(finalResults([row({ ...snapshot([], 0, 1000, 4000), perSecond: [3] })]).error_rate_per_second).toEqual([0]);
  });
});
