// How a load test is cut into shards (activities on the load pool): pure, so the workflow and the
// tests share it.
import type { ShardInput } from '../activities/load/index.ts';
import { splitUsers, usersKeptTogether, type LoadTestInput } from '../lib/jobs/load-test.ts';

/**
 * How a lost load worker's shard comes back: its shard stops heartbeating and, after the heartbeat
 * timeout, Temporal runs it again on another load worker a tenth of a second later (SHARD_RETRY), inside the
 * same time window. A load worker sends Temporal every heartbeat a shard gives (SHARD_HEARTBEAT_EVERY,
 * its throttle: the SDK would send at most one per 80 % of the timeout), and each costs the Temporal
 * server a write (~6-7 ms of the dev server's CPU, measured by bench:shard-scale): so a test of up to
 * FAST_FAILOVER_SHARDS shards heartbeats every second with a 3-s timeout (a lost shard sends again
 * about 4 s after its worker died); a larger one every 10 s, or less often, so that one test sends
 * Temporal at most TEST_HEARTBEATS_PER_SECOND (every 20 s for 1,000 shards, 40 s for 2,000), with a
 * timeout of one and a half times that (15 s, 30 s, 60 s): its Temporal cost stops growing at 500 shards.
 */
export const SHARD_HEARTBEAT_EVERY = '1 second';
export const FAST_FAILOVER_SHARDS = 20;
export const TEST_HEARTBEATS_PER_SECOND = 50;
export const SHARD_RETRY = { maximumAttempts: 3, initialInterval: '100 milliseconds' } as const;

/** How often each shard of a test of `shards` shards heartbeats, and how long Temporal waits for one (ms). */
export function shardLiveness(shards: number): { heartbeatEveryMs: number; heartbeatTimeoutMs: number } {
  if (shards <= FAST_FAILOVER_SHARDS) return { heartbeatEveryMs: 1000, heartbeatTimeoutMs: 3000 };
  const everyMs = Math.max(10_000, Math.ceil(shards / TEST_HEARTBEATS_PER_SECOND) * 1000);
  return { heartbeatEveryMs: everyMs, heartbeatTimeoutMs: everyMs * 1.5 };
}

/** Users per shard: more shards spread one test over more load workers. */
export const USERS_PER_SHARD = 500;

/** The shards of a test: users split evenly, the arrival rate (and an open model's stages) in proportion. */
export function planShards(input: LoadTestInput, startAt: number, endAt: number): Array<Omit<ShardInput, 'testId'>> {
  const whole = {
    target: input.target,
    users: input.concurrentUsers,
    firstUser: 0,
    totalUsers: input.concurrentUsers,
    startAt,
    endAt,
    rampUpMs: input.rampUpSeconds * 1000,
    rate: input.requestsPerSecond,
    // Users are counted over the whole test (a user is active while the target is above its index);
    // a rate is shared in proportion, as the fixed rate is.
    ...(input.stages ? { stages: input.stages } : {}),
  };
  const parts = splitUsers(whole, Math.ceil(input.concurrentUsers / USERS_PER_SHARD), usersKeptTogether(input.target));
  const { heartbeatEveryMs } = shardLiveness(parts.length);
  return parts.map((part, shard) => ({ shard, shards: parts.length, heartbeatEveryMs, ...part }));
}
