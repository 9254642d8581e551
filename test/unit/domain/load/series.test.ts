// A test's per-second series from its shards' snapshots: each second's figures added exactly across
// shards, the slowest the larger of theirs, seconds without answers as zeros.
import { describe, expect, it } from 'vitest';
import { secondsIn, seriesRows } from '../../../../domain/load/series.ts';
import type { ShardSnapshot } from '../../../../domain/load/shard.ts';

const shard = (perSecond: number[], answered: number[], failed: number[], sumUs: number[], maxUs: number[]) =>
  ({ perSecond, seconds: { answered, failed, latencySumUs: sumUs, latencyMaxUs: maxUs } }) as unknown as ShardSnapshot;

describe('the per-second series', () => {
  it('adds the shards second by second', () => {
    const a = shard([10, 5], [10, 4], [1, 0], [10_000, 8000], [2000, 3000]);
    const b = shard([6, 5, 2], [6, 5, 2], [0, 5, 0], [30_000, 5000, 2000], [9000, 1000, 1000]);
    expect(secondsIn([a, b])).toBe(3);
    const start = Date.parse('2026-11-27T10:00:00Z');
    expect(seriesRows([a, b], start, 1, 3)).toEqual([
      {
        second: 1,
        time: '2026-11-27T10:00:01.000Z',
        requests: 10,
        answered: 9,
        failed: 5,
        error_rate: 55.56,
        avg_response_time: 1.44,
        max_response_time: 3,
      },
      {
        second: 2,
        time: '2026-11-27T10:00:02.000Z',
        requests: 2,
        answered: 2,
        failed: 0,
        error_rate: 0,
        avg_response_time: 1,
        max_response_time: 1,
      },
    ]);
    expect(seriesRows([a, b], start, 0, 1)[0]).toMatchObject({
      requests: 16,
      answered: 16,
      failed: 1,
      max_response_time: 9,
    });
  });
});
