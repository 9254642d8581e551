import Router from '@koa/router';
import { z } from 'zod';
import { type CachedCheck, type CheckSummary, createConfiguredDomainLookup, LOOKUP_MODES } from '../../activities/whois/lookup.ts';
import { bulkEntry, whoisResponse } from '../../activities/whois/present.ts';
import type { RegistrableDomain } from '../../activities/whois/registrable.ts';
import { CURRENCIES } from '../../activities/whois/pricing.ts';
import { AppError, InvalidInputError } from '../../lib/errors.ts';
import { startJob } from '../../lib/temporal/jobs.ts';
import { DOMAIN_CHECK_KIND, type DomainCheckJob } from '../../workflows/domain-check.ts';
import { TASK_QUEUES } from '../../workflows/task-queues.ts';
import type { ApiDeps } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import { validate } from '../validate.ts';

export const BULK_MAX_DOMAINS = 100;
/** Registry queries in flight per registry in a full bulk check, and DNS queries in flight in a fast one. */
export const BULK_CONCURRENCY = { full: 4, fast: 50, availability_only: 50 } as const;
/** How long the API waits for a bulk check before answering 504 (the workflow goes on and fills the cache). */
const BULK_WAIT_MS = 120_000;

const currency = z
  .string()
  .transform((c) => c.toUpperCase())
  .pipe(z.enum(CURRENCIES, { error: `must be one of ${CURRENCIES.join(', ')}` }))
  .default('USD');

const booleanParam = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');

export const whoisQuery = z.object({
  domain: z.string({ error: 'must be a string' }),
  include_pricing: booleanParam.default(true),
  currency,
  mode: z.enum(LOOKUP_MODES, { error: `must be one of ${LOOKUP_MODES.join(', ')}` }).default('full'),
});

const bulkMode = z.enum(['fast', 'full'], { error: 'must be fast or full' }).default('fast');
const domainList = z
  .array(z.string({ error: 'must be strings' }), { error: 'must be an array of domain names' })
  .min(1, 'must hold at least one domain')
  .max(BULK_MAX_DOMAINS, `must hold at most ${BULK_MAX_DOMAINS} domains: split larger sets into several requests`);

export const bulkBody = z.object({ domains: domainList, mode: bulkMode, currency });
export const bulkQuery = z.object({
  domains: z
    .string({ error: 'must be a comma-separated list of domain names' })
    .transform((v) => v.split(',').map((d) => d.trim()).filter(Boolean))
    .pipe(domainList),
  mode: bulkMode,
  currency,
});

/** Domain registration lookups: one name in the request, many as a workflow on the network pool. */
export function domainRoutes({ config, kv, temporal }: ApiDeps): Router<AuthState> {
  const router = new Router<AuthState>({ prefix: '/network' });
  const lookup = createConfiguredDomainLookup(config, kv);

  router.get('/whois', async (ctx) => {
    const started = performance.now();
    const q = validate(whoisQuery, ctx.query, 'query');
    const name = lookup.registrable(q.domain);
    const result = await lookup.check(name, q.mode);
    ctx.body = whoisResponse(result, { mode: q.mode, includePricing: q.include_pricing, currency: q.currency, executionMs: Math.round(performance.now() - started) });
  });

  const bulk = async (input: z.output<typeof bulkBody>, ownerId: number) => {
    const started = performance.now();
    const results: Record<string, unknown> = {};
    const pending = new Map<string, string>(); // registrable domain -> registry
    let cachedCount = 0;
    const answered = new Map<string, CachedCheck<CheckSummary>>();
    for (const input_ of input.domains) {
      let name: RegistrableDomain;
      try {
        name = lookup.registrable(input_, 'domains');
      } catch (err) {
        if (!(err instanceof InvalidInputError)) throw err;
        results[input_.trim()] = { success: false, error: err.message };
        continue;
      }
      const { domain } = name;
      if (answered.has(domain) || pending.has(domain)) continue; // duplicates collapse
      const cached = await lookup.cachedOnly(name, input.mode);
      if (cached) {
        answered.set(domain, cached);
        cachedCount++;
      } else {
        pending.set(domain, lookup.answeredBy(name, input.mode));
      }
    }
    if (pending.size > 0) {
      const groups = new Map<string, string[]>();
      for (const [domain, registry] of pending) groups.set(registry, [...(groups.get(registry) ?? []), domain]);
      const job: DomainCheckJob = {
        mode: input.mode,
        groups: [...groups].map(([registry, domains]) => ({ registry, domains, concurrency: BULK_CONCURRENCY[input.mode] })),
      };
      const { handle } = await startJob(temporal, { kind: DOMAIN_CHECK_KIND, ownerId, workflowType: 'bulkDomainCheck', taskQueue: TASK_QUEUES.workflows, args: [job] });
      const checked = await withDeadline(handle.result() as Promise<Record<string, { check: CheckSummary; cached: boolean }>>, BULK_WAIT_MS, handle.workflowId);
      for (const [domain, entry] of Object.entries(checked)) answered.set(domain, { ...entry, cacheExpires: 0 });
    }
    for (const [domain, entry] of answered) results[domain] = bulkEntry(entry, input.currency);
    return {
      success: true,
      query_time_ms: Math.round(performance.now() - started),
      total: Object.keys(results).length,
      cached_count: cachedCount,
      checked_count: pending.size,
      mode: input.mode,
      currency: input.currency,
      results,
    };
  };

  router.post('/domains/check', async (ctx) => {
    ctx.body = await bulk(validate(bulkBody, ctx.request.body, 'body'), ctx.state.account.userId);
  });
  router.get('/domains/check', async (ctx) => {
    ctx.body = await bulk(validate(bulkQuery, ctx.query, 'query'), ctx.state.account.userId);
  });

  return router;
}

async function withDeadline<T>(work: Promise<T>, ms: number, workflowId: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError(504, `The bulk check did not finish within ${ms / 1000} s; its answers fill the cache as they come (workflow ${workflowId}): repeat the request later`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
