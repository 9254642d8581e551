// Page discovery and page design audits for the REST routes and the MCP tools alike: the same
// validation, the SSRF check before anything is started, the cache (answers carry `cached` and
// `cache_age_seconds`; `fresh: true` bypasses and refreshes it), and one workflow per miss.
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { PAGE_TYPES, type AuditResult, type PageType } from '../activities/site/audit/index.ts';
import { MAX_PAGES, type Discovery } from '../activities/site/discover.ts';
import { auditCacheKey, discoveryCacheKey, readCached, type CachedAnswer, type Outcome } from '../activities/site/index.ts';
import { AppError, type ErrorStatus } from '../lib/errors.ts';
import type { KvStore } from '../lib/kv/index.ts';
import { checkTarget } from '../lib/net/guarded-fetch.ts';
import { startJob } from '../lib/temporal/jobs.ts';
import { PAGE_AUDIT_KIND, SITE_DISCOVERY_KIND } from '../workflows/site.ts';
import { TASK_QUEUES } from '../workflows/task-queues.ts';
import { headersQuery } from './routes/lookups.ts';

/** How long a request waits for its job; the job's answer still fills the cache after that. */
export const SITE_JOB_WAIT_MS = 150_000;

const fresh = z.boolean({ error: 'must be true or false' }).default(false);
export const discoverInput = headersQuery.extend({
  limit: z.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, `must be from 1 to ${MAX_PAGES}`).max(MAX_PAGES, `must be from 1 to ${MAX_PAGES}`).default(MAX_PAGES),
  fresh,
});
export const auditInput = headersQuery.extend({
  page_type: z.enum(PAGE_TYPES, { error: `must be one of ${PAGE_TYPES.join(', ')}` }).optional(),
  fresh,
});

export interface DiscoverAnswer {
  url: string;
  source: Discovery['source'];
  pages: string[];
  total: number;
  cached: boolean;
  cache_age_seconds: number;
}

export type AuditAnswer = AuditResult & { cached: boolean; cache_age_seconds: number };

export function siteService(deps: { kv: KvStore; temporal: Client; allow: readonly string[] }) {
  async function run<T>(kind: string, workflowType: string, args: unknown[], ownerId: number): Promise<T> {
    const { handle } = await startJob(deps.temporal, { kind, ownerId, workflowType, taskQueue: TASK_QUEUES.workflows, args });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AppError(504, `The ${kind} job did not finish within ${SITE_JOB_WAIT_MS / 1000} s (workflow ${handle.workflowId}); its answer fills the cache when it does: ask again later`)), SITE_JOB_WAIT_MS);
    });
    try {
      const outcome = (await Promise.race([handle.result(), deadline])) as Outcome<T>;
      if (!outcome.ok) throw new AppError(outcome.status as ErrorStatus, outcome.message);
      return outcome.value;
    } finally {
      clearTimeout(timer);
    }
  }

  const age = (c: CachedAnswer<unknown>) => Math.max(0, Math.floor((Date.now() - c.storedAt) / 1000));

  return {
    async discover(input: z.output<typeof discoverInput>, ownerId: number): Promise<DiscoverAnswer> {
      await checkTarget(input.url, { allow: deps.allow, field: 'url' });
      const hit = input.fresh ? null : await readCached<Discovery>(deps.kv, discoveryCacheKey(input.url));
      const found = hit?.value ?? (await run<Discovery>(SITE_DISCOVERY_KIND, 'siteDiscovery', [input.url], ownerId));
      const pages = found.pages.slice(0, input.limit);
      return { url: input.url, source: found.source, pages, total: pages.length, cached: hit !== null, cache_age_seconds: hit ? age(hit) : 0 };
    },
    async audit(input: z.output<typeof auditInput>, ownerId: number): Promise<AuditAnswer> {
      await checkTarget(input.url, { allow: deps.allow, field: 'url' });
      const pageType: PageType | undefined = input.page_type;
      const hit = input.fresh ? null : await readCached<AuditResult>(deps.kv, auditCacheKey(input.url, pageType));
      const result = hit?.value ?? (await run<AuditResult>(PAGE_AUDIT_KIND, 'pageAudit', [input.url, pageType], ownerId));
      return { ...result, cached: hit !== null, cache_age_seconds: hit ? age(hit) : 0 };
    },
  };
}

export type SiteService = ReturnType<typeof siteService>;
