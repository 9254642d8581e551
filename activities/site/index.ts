// Activities of the network pool for sites: page discovery and the page design audit. They fetch
// through the address guard, store their answer in the key-value store (30 minutes for page lists,
// 5 minutes for audits; the API answers repeats from there) and return failures as values: a page
// that is too large or answers 404 is an answer to give the caller, not something to retry.
import { AppError } from '../../lib/errors.ts';
import type { Outcome } from '../../lib/jobs/site.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { createGuardedFetch } from '../../lib/net/guarded-fetch.ts';
import {
  auditPage,
  PAGE_MAX_BYTES,
  STYLESHEET_MAX_BYTES,
  type AuditResult,
  type PageType,
} from '../../domain/site/audit/index.ts';
import { MAX_PAGES } from '../../contract/site.ts';
import { discoverPages, SITEMAP_MAX_BYTES, type Discovery } from '../../domain/site/discover.ts';
import {
  auditCacheKey,
  cachedAudit,
  cachedDiscovery,
  discoveryCacheKey,
  readCached,
  store,
} from '../../domain/site/cache.ts';

export const DISCOVERY_CACHE_SECONDS = 30 * 60;
export const AUDIT_CACHE_SECONDS = 5 * 60;
export const SITE_FETCH_TIMEOUT_MS = 10_000;

async function outcome<T>(work: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}

export function createSiteActivities(deps: { kv: KvStore; allow: readonly string[] }) {
  const fetchSitemap = createGuardedFetch({
    allow: deps.allow,
    timeoutMs: SITE_FETCH_TIMEOUT_MS,
    maxBytes: SITEMAP_MAX_BYTES,
  });
  const fetchPage = createGuardedFetch({
    allow: deps.allow,
    timeoutMs: SITE_FETCH_TIMEOUT_MS,
    maxBytes: PAGE_MAX_BYTES,
  });
  const fetchStylesheet = createGuardedFetch({
    allow: deps.allow,
    timeoutMs: SITE_FETCH_TIMEOUT_MS,
    maxBytes: STYLESHEET_MAX_BYTES,
  });
  return {
    /** Up to MAX_PAGES pages of the site (the caller's `limit` is applied when answering). */
    async discoverSitePages(url: string, fromCache = false): Promise<Outcome<Discovery>> {
      const hit = fromCache ? await readCached(deps.kv, discoveryCacheKey(url), cachedDiscovery) : null;
      if (hit) return { ok: true, value: hit.value, storedAt: hit.storedAt };
      return outcome(async () => {
        const found = await discoverPages(url, fetchSitemap, MAX_PAGES);
        await store(deps.kv, discoveryCacheKey(url), found, DISCOVERY_CACHE_SECONDS);
        return found;
      });
    },
    async auditPageDesign(
      url: string,
      pageType: PageType | undefined,
      fromCache = false,
    ): Promise<Outcome<AuditResult>> {
      const hit = fromCache ? await readCached(deps.kv, auditCacheKey(url, pageType), cachedAudit) : null;
      if (hit) return { ok: true, value: hit.value, storedAt: hit.storedAt };
      return outcome(async () => {
        const result = await auditPage({ url, pageType, fetchPage, fetchStylesheet });
        await store(deps.kv, auditCacheKey(url, pageType), result, AUDIT_CACHE_SECONDS);
        return result;
      });
    },
  };
}

export type SiteActivities = ReturnType<typeof createSiteActivities>;
