// Domain registration lookups: one name in the request, many as a workflow on the network pool
// (only the names the cache does not answer), waited for until bulkDeadlineMs.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { type CachedCheck, createConfiguredDomainLookup } from '../../activities/whois/lookup.ts';
import { bulkEntry, whoisResponse } from '../../activities/whois/present.ts';
import type { RegistrableDomain } from '../../activities/whois/registrable.ts';
import type { Config } from '../../lib/config.ts';
import { InvalidInputError } from '../../lib/errors.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { resultWithin, startJob, within } from '../../lib/temporal/jobs.ts';
import { DOMAIN_CHECK_KIND, getDomainCheckState, type BulkAnswers, type CheckSummary, type DomainCheckJob } from '../../lib/jobs/domain-check.ts';
import type { BulkInput, WhoisQuery } from '../schemas/domains.ts';

/** Registry queries in flight per registry in a full bulk check, and DNS queries in flight in a fast one. */
export const BULK_CONCURRENCY = { full: 4, fast: 50, availability_only: 50 } as const;
/**
 * How long the API waits for a bulk check: six lookup steps (two names' RDAP, WHOIS and DNS, 30 s with the
 * default LOOKUP_TIMEOUT_MS). Past it the answer holds what is known, the rest as `timeout` entries; the
 * workflow goes on and fills the cache.
 */
export const bulkDeadlineMs = (config: Pick<Config, 'lookupTimeoutMs'>) => 6 * config.lookupTimeoutMs;

/** How long the answers so far may take to read once the deadline has passed. */
const QUERY_WAIT_MS = 3000;

/**
 * The answers a running bulk check holds; none when no workflows worker answers the query in time,
 * or the check was started by a release whose state had no answers.
 */
async function answersSoFar(handle: WorkflowHandle): Promise<BulkAnswers> {
  const asked = handle.query(getDomainCheckState).then((s) => s.results ?? {});
  try {
    return (await within(asked, QUERY_WAIT_MS))?.value ?? {};
  } catch {
    return {};
  }
}

export function domainService({ config, kv, temporal }: { config: Config; kv: KvStore; temporal: Client }) {
  const lookup = createConfiguredDomainLookup(config, kv);

  return {
    async whois(q: WhoisQuery) {
      const started = performance.now();
      const result = await lookup.check(lookup.registrable(q.domain), q.mode);
      return whoisResponse(result, { mode: q.mode, includePricing: q.include_pricing, currency: q.currency, executionMs: Math.round(performance.now() - started) });
    },

    async bulk(input: BulkInput, ownerId: number) {
      const started = performance.now();
      const results: Record<string, unknown> = {};
      const pending = new Map<string, string>(); // registrable domain -> registry
      let cachedCount = 0;
      const answered = new Map<string, CachedCheck<CheckSummary>>();
      for (const given of input.domains) {
        let name: RegistrableDomain;
        try {
          name = lookup.registrable(given, 'domains');
        } catch (err) {
          if (!(err instanceof InvalidInputError)) throw err;
          results[given.trim()] = { success: false, error: err.message };
          continue;
        }
        const { domain } = name;
        if (answered.has(domain) || pending.has(domain)) continue; // duplicates collapse
        const cached = await lookup.cachedOnly(name, input.mode);
        if (cached) {
          answered.set(domain, cached);
          if (cached.cached) cachedCount++; // else answered by rule (RFC 6761), neither cached nor checked
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
        const { handle } = await startJob(temporal, { kind: DOMAIN_CHECK_KIND, ownerId, workflow: 'bulkDomainCheck', args: [job] });
        const deadlineMs = bulkDeadlineMs(config);
        const checked = (await resultWithin<BulkAnswers>(handle, deadlineMs))?.value ?? (await answersSoFar(handle));
        for (const domain of pending.keys()) {
          const entry = checked[domain];
          if (entry && 'check' in entry) answered.set(domain, { ...entry, cacheExpires: 0 });
          else results[domain] = entry ? { success: false, error: entry.error } : { success: false, error: 'timeout', message: `no answer within ${deadlineMs / 1000} s; the check goes on (workflow ${handle.workflowId}) and fills the cache: ask again later` };
        }
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
    },
  };
}

export type DomainService = ReturnType<typeof domainService>;
