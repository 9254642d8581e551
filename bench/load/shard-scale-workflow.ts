// The workflow of bench/load/shard-scale.ts: N shard activities at once, with the options the load
// test's workflow gives its shards (workflows/load-test.ts), so Temporal does for them what it does
// for a real test's shards: one activity task each, heartbeats, a retry when one stops heartbeating.
import { proxyActivities } from '@temporalio/workflow';

export interface IdleShardInput {
  testId: string;
  shard: number;
  startAt: number;
  endAt: number;
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
    heartbeatTimeout: '15 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
  });
  const outcomes = await Promise.allSettled(Array.from({ length: shards }, (_, shard) => idleShard({ testId, shard, startAt, endAt })));
  return outcomes.filter((o) => o.status === 'rejected').length;
}
