// The shard plan of a load test: every user in exactly one shard, at most USERS_PER_SHARD per shard,
// the arrival rate split in proportion to the users.
import { describe, expect, it } from 'vitest';
import type { LoadTestInput } from '../../../lib/jobs/load-test.ts';
import { FAST_FAILOVER_SHARDS, planShards, shardLiveness, USERS_PER_SHARD } from '../../../workflows/load-test-plan.ts';

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

  it('heartbeats every second with a 3-s timeout up to FAST_FAILOVER_SHARDS shards, every 10 s with 15 s beyond', () => {
    expect(shardLiveness(1)).toEqual({ heartbeatEveryMs: 1000, heartbeatTimeout: '3 seconds' });
    expect(shardLiveness(FAST_FAILOVER_SHARDS)).toEqual({ heartbeatEveryMs: 1000, heartbeatTimeout: '3 seconds' });
    expect(shardLiveness(FAST_FAILOVER_SHARDS + 1)).toEqual({
      heartbeatEveryMs: 10_000,
      heartbeatTimeout: '15 seconds',
    });
    expect(
      planShards(input(USERS_PER_SHARD * (FAST_FAILOVER_SHARDS + 1)), 0, 1).every((s) => s.heartbeatEveryMs === 10_000),
    ).toBe(true);
  });
});
