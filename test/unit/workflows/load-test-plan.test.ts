// The shard plan of a load test: every user in exactly one shard, at most USERS_PER_SHARD per shard,
// the arrival rate split in proportion to the users.
import { describe, expect, it } from 'vitest';
import type { LoadTestInput } from '../../../lib/jobs/load-test.ts';
import {
  FAST_FAILOVER_SHARDS,
  planShards,
  shardLiveness,
  TEST_HEARTBEATS_PER_SECOND,
  USERS_PER_SHARD,
} from '../../../workflows/load-test-plan.ts';

const input = (concurrentUsers: number, requestsPerSecond = 0): LoadTestInput => ({
  testId: 't',
  target: { url: 'http://127.0.0.1:9/', method: 'GET', headers: {} },
  concurrentUsers,
  testDurationSeconds: 60,
  rampUpSeconds: 5,
  requestsPerSecond,
});

describe('planShards', () => {
  it('keeps a test of up to USERS_PER_SHARD users in one shard', () => {
    expect(planShards(input(1), 1000, 61_000)).toEqual([
      {
        shard: 0,
        shards: 1,
        target: input(1).target,
        users: 1,
        firstUser: 0,
        totalUsers: 1,
        startAt: 1000,
        endAt: 61_000,
        rampUpMs: 5000,
        rate: 0,
        heartbeatEveryMs: 1000,
      },
    ]);
    expect(planShards(input(USERS_PER_SHARD), 0, 1)).toHaveLength(1);
  });

  it('splits more users evenly over as few shards as the limit allows, each user once', () => {
    const shards = planShards(input(USERS_PER_SHARD * 2 + 1), 0, 1);
    expect(shards.map((s) => s.users)).toEqual([334, 334, 333]);
    expect(shards.map((s) => s.firstUser)).toEqual([0, 334, 668]);
    expect(shards.every((s) => s.totalUsers === 1001)).toBe(true);
    const big = planShards(input(10_000), 0, 1);
    expect(big).toHaveLength(20);
    expect(big.every((s) => s.heartbeatEveryMs === 1000)).toBe(true);
    expect(big.reduce((n, s) => n + s.users, 0)).toBe(10_000);
    expect(Math.max(...big.map((s) => s.users))).toBeLessThanOrEqual(USERS_PER_SHARD);
  });

  it('splits the arrival rate in proportion to the users', () => {
    const shards = planShards(input(1001, 3003), 0, 1);
    expect(shards.map((s) => s.rate)).toEqual([1002, 1002, 999]);
    expect(shards.reduce((n, s) => n + s.rate, 0)).toBe(3003);
  });

  it(
    'heartbeats every second with a 3-s timeout up to FAST_FAILOVER_SHARDS shards, then every 10 s or less often, ' +
      'so that one test sends at most TEST_HEARTBEATS_PER_SECOND',
    () => {
      expect(shardLiveness(1)).toEqual({ heartbeatEveryMs: 1000, heartbeatTimeoutMs: 3000 });
      expect(shardLiveness(FAST_FAILOVER_SHARDS)).toEqual({ heartbeatEveryMs: 1000, heartbeatTimeoutMs: 3000 });
      expect(shardLiveness(FAST_FAILOVER_SHARDS + 1)).toEqual({ heartbeatEveryMs: 10_000, heartbeatTimeoutMs: 15_000 });
      expect(shardLiveness(500)).toEqual({ heartbeatEveryMs: 10_000, heartbeatTimeoutMs: 15_000 });
      expect(shardLiveness(501)).toEqual({ heartbeatEveryMs: 11_000, heartbeatTimeoutMs: 16_500 });
      expect(shardLiveness(1000)).toEqual({ heartbeatEveryMs: 20_000, heartbeatTimeoutMs: 30_000 });
      expect(shardLiveness(2000)).toEqual({ heartbeatEveryMs: 40_000, heartbeatTimeoutMs: 60_000 });
      for (const shards of [FAST_FAILOVER_SHARDS + 1, 499, 500, 501, 999, 1000, 1999, 2001]) {
        const { heartbeatEveryMs, heartbeatTimeoutMs } = shardLiveness(shards);
        expect(shards / (heartbeatEveryMs / 1000)).toBeLessThanOrEqual(TEST_HEARTBEATS_PER_SECOND);
        expect(heartbeatTimeoutMs).toBe(heartbeatEveryMs * 1.5);
      }
      expect(
        planShards(input(USERS_PER_SHARD * (FAST_FAILOVER_SHARDS + 1)), 0, 1).every(
          (s) => s.heartbeatEveryMs === 10_000,
        ),
      ).toBe(true);
      expect(planShards(input(USERS_PER_SHARD * 1000), 0, 1).every((s) => s.heartbeatEveryMs === 20_000)).toBe(true);
    },
  );
});
