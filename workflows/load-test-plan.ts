// How a load test is cut into shards (activities on the load pool): pure, so the workflow and the
// tests share it.
import type { ShardInput } from '../activities/load/index.ts';
import type { LoadTestInput } from '../lib/jobs/load-test.ts';

/** Users per shard: more shards spread one test over more load workers. */
export const USERS_PER_SHARD = 500;

/** The shards of a test: users split evenly, the arrival rate split in proportion. */
export function planShards(input: LoadTestInput, startAt: number, endAt: number): Array<Omit<ShardInput, 'testId'>> {
  const count = Math.ceil(input.concurrentUsers / USERS_PER_SHARD);
  const shards: Array<Omit<ShardInput, 'testId'>> = [];
  let firstUser = 0;
  for (let i = 0; i < count; i++) {
    const users = Math.floor(input.concurrentUsers / count) + (i < input.concurrentUsers % count ? 1 : 0);
    shards.push({
      shard: i,
      target: input.target,
      users,
      firstUser,
      totalUsers: input.concurrentUsers,
      startAt,
      endAt,
      rampUpMs: input.rampUpSeconds * 1000,
      rate: (input.requestsPerSecond * users) / input.concurrentUsers,
      // Users are counted over the whole test (a user is active while the target is above its index);
      // a rate is shared in proportion, as the fixed rate is.
      ...(input.stages ? { stages: input.requestsPerSecond > 0 ? input.stages.map((st) => ({ ...st, target: (st.target * users) / input.concurrentUsers })) : input.stages } : {}),
    });
    firstUser += users;
  }
  return shards;
}
