// How long a domain check (lookup.ts) is kept, and where: a key-value entry per name and tier of
// evidence, for a time that depends on what the check says and how it was learnt.
import { z } from 'zod';
import { getJson, type KvStore } from '../../lib/kv/index.ts';
import type { CheckSummary } from '../../lib/jobs/domain-check.ts';
import type { ParsedData } from './parse.ts';

/** A check as cached: its summary, with the registration record and the raw answer (lookup.ts, DomainCheck). */
export type CachedDomainCheck = CheckSummary & { raw_data: string; parsed_data: ParsedData };

/** Seconds a result is cached, by what it says and how it was learnt. Unknown results are not cached. */
export const CACHE_TTL_SECONDS = {
  registry: { registered: 6 * 3600, available: 10 * 60, reserved: 24 * 3600 },
  dns: { registered: 3600, available: 5 * 60, reserved: 24 * 3600 },
} as const;

/** How a check was learnt: from a registry (RDAP or WHOIS), or from DNS. */
export type CacheTier = keyof typeof CACHE_TTL_SECONDS;

// v2: v1 answers held a Specification 5 name nobody answered for as not available (medium), not unknown.
const cacheKey = (tier: CacheTier, domain: string) => `domain-check:v2:${tier}:${domain}`;

const nullableText = z.string().nullable();

/** A check as cached, with when it expires (Unix seconds). */
const cachedCheck = z.object({
  check: z.object({
    domain: z.string(),
    suffix: z.string(),
    available: z.boolean().nullable(),
    is_registered: z.boolean().nullable(),
    is_reserved: z.boolean(),
    reserved_reason: nullableText,
    registry_premium: z.boolean(),
    aftermarket: z.boolean(),
    confidence: z.enum(['high', 'medium', 'low']),
    evidence: z.enum(['rdap', 'whois', 'dns', 'rule']),
    whois_server: z.string(),
    problems: z.array(z.string()),
    raw_data: z.string(),
    parsed_data: z.object({
      domain_name: nullableText,
      registrar: nullableText,
      creation_date: nullableText,
      expiration_date: nullableText,
      updated_date: nullableText,
      status: z.array(z.string()),
      name_servers: z.array(z.string()),
      registrant: z.null(),
    }),
  }),
  expires: z.number(),
}) satisfies z.ZodType<{ check: CachedDomainCheck; expires: number }>;

/** The cached check of `domain` in `tier`, with when it expires (Unix seconds), or null. */
export async function readCache(
  kv: KvStore,
  tier: CacheTier,
  domain: string,
): Promise<{ check: CachedDomainCheck; cached: true; cacheExpires: number } | null> {
  const hit = await getJson(kv, cacheKey(tier, domain), cachedCheck, 'domain check');
  return hit && { check: hit.check, cached: true, cacheExpires: hit.expires };
}

/** Caches `check` for its time (an unknown one, of low confidence, not at all); returns when it expires. */
export async function writeCache(kv: KvStore, tier: CacheTier, check: CachedDomainCheck): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  if (check.confidence === 'low') return now;
  const kind = check.is_reserved ? 'reserved' : check.is_registered ? 'registered' : 'available';
  const ttl = CACHE_TTL_SECONDS[tier][kind];
  await kv.set(cacheKey(tier, check.domain), JSON.stringify({ check, expires: now + ttl }), ttl);
  return now + ttl;
}
