// Page discovery and page design audits for the REST routes and the MCP tools alike: the same
// validation, the SSRF check before anything is started, the cache (answers carry `cached` and
// `cache_age_seconds`; `fresh: true` bypasses and refreshes it), and one workflow per miss.
import type { Client } from '@temporalio/client';
import type { z } from 'zod';
import {
  auditCacheKey,
  cachedAudit,
  cachedDiscovery,
  discoveryCacheKey,
  readCached,
  type CachedAnswer,
} from '../../domain/site/cache.ts';
import { AppError, JobTimeoutError } from '../../lib/errors.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { checkTarget } from '../../lib/net/target-guard.ts';
import { resultWithin, startJob, type JobStart } from '../../lib/temporal/jobs.ts';
import type { JobWorkflows } from '../../lib/jobs/index.ts';
import {
  PAGE_AUDIT_KIND,
  SITE_DISCOVERY_KIND,
  type AuditResult,
  type Discovery,
  type Outcome,
  type PageType,
} from '../../lib/jobs/site.ts';
import type { auditInput, discoverInput } from '../../contract/site.ts';

/** How long a request waits for its job; the job's answer still fills the cache after that. */
export const SITE_JOB_WAIT_MS = 150_000;

export interface DiscoverAnswer {
  url: string;
  source: Discovery['source'];
  pages: string[];
  total: number;
  cached: boolean;
  cache_age_seconds: number;
}

export type AuditAnswer = AuditResult & { cached: boolean; cache_age_seconds: number };

type SiteWorkflow = 'siteDiscovery' | 'pageAudit';
/** What a site workflow's outcome carries when it succeeds: Discovery, AuditResult. */
type OutcomeValue<N extends SiteWorkflow> = Awaited<ReturnType<JobWorkflows[N]>> extends Outcome<infer T> ? T : never;

export function siteService(deps: { kv: KvStore; temporal: Client; allow: readonly string[] }) {
  async function run<N extends SiteWorkflow>(
    kind: string,
    workflow: N,
    args: Parameters<JobWorkflows[N]>,
    ownerId: number,
  ): Promise<OutcomeValue<N>> {
    const { handle } = await startJob(deps.temporal, { kind, ownerId, workflow, args });
    const outcome = await resultWithin<Outcome<OutcomeValue<N>>>(handle, SITE_JOB_WAIT_MS);
    if (!outcome)
      throw new JobTimeoutError(
        `The ${kind} job did not finish within ${SITE_JOB_WAIT_MS / 1000} s (workflow ${handle.workflowId}); ` +
          'its answer fills the cache when it does: ask again later',
      );
    return outcomeValue(outcome.value);
  }

  const age = (c: Pick<CachedAnswer<unknown>, 'storedAt'>) => Math.max(0, Math.floor((Date.now() - c.storedAt) / 1000));

  /** A site job's value, or its failure as the REST endpoint would answer it. */
  function outcomeValue<T>(answer: Outcome<T>): T {
    if (!answer.ok) throw new AppError(answer.code, answer.message);
    return answer.value;
  }

  /** Starts a site job for an MCP task once `url` passes the address check; answers its workflow id. */
  async function startTask<N extends SiteWorkflow>(url: string, job: JobStart<N>): Promise<string> {
    await checkTarget(url, { allow: deps.allow, field: 'url' });
    const { handle } = await startJob(deps.temporal, { ...job, memo: { task: true, ...job.memo } });
    return handle.workflowId;
  }

  return {
    /**
     * The same jobs started for an MCP task: the workflow answers from the cache itself unless `fresh`,
     * so every call has its job (a task is a workflow). Answers the workflow id.
     */
    startDiscover(input: z.output<typeof discoverInput>, ownerId: number): Promise<string> {
      return startTask(input.url, {
        kind: SITE_DISCOVERY_KIND,
        ownerId,
        workflow: 'siteDiscovery',
        args: [input.url, !input.fresh],
        memo: { url: input.url, limit: input.limit },
      });
    },
    startAudit(input: z.output<typeof auditInput>, ownerId: number): Promise<string> {
      return startTask(input.url, {
        kind: PAGE_AUDIT_KIND,
        ownerId,
        workflow: 'pageAudit',
        args: [input.url, input.page_type, !input.fresh],
      });
    },
    /** The answer of a site job that ended, as `discover` or `audit` answers; its failure throws as they do. */
    async jobAnswer(workflowId: string): Promise<DiscoverAnswer | AuditAnswer> {
      const handle = deps.temporal.workflow.getHandle(workflowId);
      const outcome = (await handle.result()) as Outcome<Discovery | AuditResult>;
      const value = outcomeValue(outcome);
      const cached =
        outcome.ok && outcome.storedAt !== undefined
          ? { cached: true, cache_age_seconds: age({ storedAt: outcome.storedAt }) }
          : { cached: false, cache_age_seconds: 0 };
      if (!('pages' in value)) return { ...value, ...cached };
      const memo = ((await handle.describe()).memo ?? {}) as { url?: string; limit?: number };
      const pages = value.pages.slice(0, memo.limit ?? value.pages.length);
      return { url: memo.url ?? '', source: value.source, pages, total: pages.length, ...cached };
    },
    async discover(input: z.output<typeof discoverInput>, ownerId: number): Promise<DiscoverAnswer> {
      await checkTarget(input.url, { allow: deps.allow, field: 'url' });
      const hit = input.fresh ? null : await readCached(deps.kv, discoveryCacheKey(input.url), cachedDiscovery);
      const found = hit?.value ?? (await run(SITE_DISCOVERY_KIND, 'siteDiscovery', [input.url], ownerId));
      const pages = found.pages.slice(0, input.limit);
      return {
        url: input.url,
        source: found.source,
        pages,
        total: pages.length,
        cached: hit !== null,
        cache_age_seconds: hit ? age(hit) : 0,
      };
    },
    async audit(input: z.output<typeof auditInput>, ownerId: number): Promise<AuditAnswer> {
      await checkTarget(input.url, { allow: deps.allow, field: 'url' });
      const pageType: PageType | undefined = input.page_type;
      const key = auditCacheKey(input.url, pageType);
      const hit = input.fresh ? null : await readCached(deps.kv, key, cachedAudit);
      const result = hit?.value ?? (await run(PAGE_AUDIT_KIND, 'pageAudit', [input.url, pageType], ownerId));
      return { ...result, cached: hit !== null, cache_age_seconds: hit ? age(hit) : 0 };
    },
  };
}

export type SiteService = ReturnType<typeof siteService>;
