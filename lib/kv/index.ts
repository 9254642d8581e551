import type { KvStore } from './kv-store.ts';
import { MemoryKvStore } from './memory-store.ts';
import { RedisKvStore } from './redis-store.ts';

export type { KvStore, QuotaResult, QuotaState, QuotaWindow } from './kv-store.ts';
export { MemoryKvStore, RedisKvStore };
export { getJson } from './json.ts';

export function createKvStore(redisUrl: string | undefined): KvStore {
  return redisUrl ? new RedisKvStore(redisUrl) : new MemoryKvStore();
}
