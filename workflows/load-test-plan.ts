// How a load test is cut into shards (activities on the load pool): pure, so the workflow and the
// tests share it.
import type { ShardInput } from '../activities/load/index.ts';
import { splitUsers, type LoadTestInput } from '../lib/jobs/load-test.ts';

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
  return splitUsers(whole, Math.ceil(input.concurrentUsers / USERS_PER_SHARD)).map((part, shard) => ({ shard, ...part }));
}
