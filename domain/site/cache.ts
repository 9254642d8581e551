// The site jobs' answers in the key-value store: their keys and how they are stored and read back
// (the activities store them; the API answers repeats from them).
import { z } from 'zod';
import { PAGE_TYPES, type AuditResult, type Discovery } from '../../lib/jobs/site.ts';
import { getJson, type KvStore } from '../../lib/kv/index.ts';
import { normalisePageUrl } from './discover.ts';
import type { PageType } from './audit/index.ts';

export interface CachedAnswer<T> {
  value: T;
  storedAt: number;
}

/** Discovery reads the site's origin whatever page of it is given: one answer per origin. */
export const discoveryCacheKey = (url: string) => `site:pages:${URL.canParse(url) ? new URL(url).origin : url}`;
export const auditCacheKey = (url: string, pageType: PageType | undefined) =>
  `site:audit:v2:${pageType ?? 'auto'}:${normalisePageUrl(url) ?? url}`;

/** A discovery's answer as stored. */
export const cachedDiscovery = z.object({
  source: z.enum(['sitemap', 'homepage_links']),
  pages: z.array(z.string()),
  read: z.array(z.string()),
}) satisfies z.ZodType<Discovery>;

const category = z.enum(['template', 'alignment', 'accessibility', 'style_budget']);
const severity = z.enum(['high', 'medium', 'low']);
const counts = z.record(z.string(), z.number());

/** An audit's answer as stored. */
export const cachedAudit = z.object({
  url: z.string(),
  final_url: z.string(),
  page_type: z.enum(PAGE_TYPES),
  page_type_source: z.string(),
  findings: z.array(
    z.object({
      rule: z.string(),
      category,
      severity,
      selector: z.string().nullable(),
      property: z.string().nullable(),
      measured: z.string(),
      threshold: z.string(),
      fix: z.string(),
      evidence: z.string(),
    }),
  ),
  needs_review: z.array(
    z.object({ rule: z.string(), category, selector: z.string().nullable(), reason: z.string(), evidence: z.string() }),
  ),
  summary: z.object({
    score: z.number(),
    total_findings: z.number(),
    needs_review: z.number(),
    by_category: z.record(category, z.number()),
    by_severity: z.record(severity, z.number()),
    stylesheets: z.object({
      read: z.number(),
      skipped: z.array(z.object({ url: z.string(), reason: z.string() })),
      style_blocks: z.number(),
      style_attributes: z.number(),
    }),
    style_counts: counts,
    page_bytes: z.number(),
    findings_omitted: counts,
    limitations: z.string(),
  }),
}) satisfies z.ZodType<AuditResult>;

/** The answer stored at `key` when it is of `shape` (one that is not reads as absent: the job runs again). */
export function readCached<T>(kv: KvStore, key: string, shape: z.ZodType<T, unknown>): Promise<CachedAnswer<T> | null> {
  return getJson(kv, key, z.object({ value: shape, storedAt: z.number() }), 'site answer');
}

export async function store<T>(kv: KvStore, key: string, value: T, ttlSeconds: number): Promise<void> {
  await kv.set(key, JSON.stringify({ value, storedAt: Date.now() } satisfies CachedAnswer<T>), ttlSeconds);
}
