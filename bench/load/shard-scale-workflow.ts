// The workflow of bench/load/shard-scale.ts: N shard activities at once, with the options the load
// test's workflow gives its shards (workflows/load-test.ts), so Temporal does for them what it does
// for a real test's shards: one activity task each, heartbeats, a retry when one stops heartbeating.
import { proxyActivities } from '@temporalio/workflow';
import { SHARD_RETRY, shardLiveness } from '../../workflows/load-test-plan.ts';

export interface IdleShardInput {
  testId: string;
  shard: number;
  shards: number;
  startAt: number;
  endAt: number;
  heartbeatEveryMs: number;
}

export interface IdleShardActivities {
  idleShard(input: IdleShardInput): Promise<number>;
}

/** Runs `shards` shard activities until `endAt`; answers how many failed after their retries. */
export async function idleShards(testId: string, shards: number, startAt: number, endAt: number): Promise<number> {
  const seconds = Math.ceil((endAt - startAt) / 1000);
  const { idleShard } = proxyActivities<IdleShardActivities>({
    startToCloseTimeout: `${seconds + 120} seconds`,
    scheduleToCloseTimeout: `${seconds + 180} seconds`,
    heartbeatTimeout: shardLiveness(shards).heartbeatTimeoutMs,
    retry: SHARD_RETRY,
  });
  const outcomes = await Promise.allSettled(
    Array.from({ length: shards }, (_, shard) =>
      idleShard({ testId, shard, shards, startAt, endAt, heartbeatEveryMs: shardLiveness(shards).heartbeatEveryMs }),
    ),
  );
  return outcomes.filter((o) => o.status === 'rejected').length;
}
