// How long a domain check (lookup.ts) is kept, and where: a key-value entry per name and tier of
// evidence, for a time that depends on what the check says and how it was learnt.
import type { CheckSummary } from '../../lib/jobs/domain-check.ts';
import type { KvStore } from '../../lib/kv/index.ts';

/** Seconds a result is cached, by what it says and how it was learnt. Unknown results are not cached. */
export const CACHE_TTL_SECONDS = {
  registry: { registered: 6 * 3600, available: 10 * 60, reserved: 24 * 3600 },
  dns: { registered: 3600, available: 5 * 60, reserved: 24 * 3600 },
} as const;

/** How a check was learnt: from a registry (RDAP or WHOIS), or from DNS. */
export type CacheTier = keyof typeof CACHE_TTL_SECONDS;

// v2: v1 answers held a Specification 5 name nobody answered for as not available (medium), not unknown.
const cacheKey = (tier: CacheTier, domain: string) => `domain-check:v2:${tier}:${domain}`;

/** The cached check of `domain` in `tier`, with when it expires (Unix seconds), or null. */
export async function readCache<C extends CheckSummary>(
  kv: KvStore,
  tier: CacheTier,
  domain: string,
): Promise<{ check: C; cached: true; cacheExpires: number } | null> {
  const hit = await kv.get(cacheKey(tier, domain));
  if (!hit) return null;
  const { check, expires } = JSON.parse(hit) as { check: C; expires: number };
  return { check, cached: true, cacheExpires: expires };
}

/** Caches `check` for its time (an unknown one, of low confidence, not at all); returns when it expires. */
export async function writeCache(kv: KvStore, tier: CacheTier, check: CheckSummary): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  if (check.confidence === 'low') return now;
  const kind = check.is_reserved ? 'reserved' : check.is_registered ? 'registered' : 'available';
  const ttl = CACHE_TTL_SECONDS[tier][kind];
  await kv.set(cacheKey(tier, check.domain), JSON.stringify({ check, expires: now + ttl }), ttl);
  return now + ttl;
}
