// A shard's plan as the unit tests of the load generator give it: a loopback target allowed, no ramp,
// the closed model; `extra` changes what a test needs.
import type { ShardPlan } from '../../domain/load/shard.ts';

export function shardPlan(url: string, users: number, durationMs: number, extra: Partial<ShardPlan> = {}): ShardPlan {
  const startAt = Date.now() + 100;
  return {
    target: { url, method: 'GET', headers: {} },
    users,
    firstUser: 0,
    totalUsers: users,
    startAt,
    endAt: startAt + durationMs,
    rampUpMs: 0,
    rate: 0,
    requestTimeoutMs: 2000,
    allow: ['127.0.0.1/32'],
    ...extra,
  };
}
