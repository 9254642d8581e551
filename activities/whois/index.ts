// Activities of the network pool for domain checks (bulk checks fan out to these, one name per call,
// so the workflow holds every answer as it comes and a deadline can answer with what it has).
import { heartbeat } from '@temporalio/activity';
import type { CheckedDomain, LookupMode } from '../../lib/jobs/domain-check.ts';
import { inLanes } from '../../lib/lanes.ts';
import type { DomainLookup } from '../../domain/whois/lookup.ts';
import { summarize } from '../../domain/whois/lookup.ts';

export function createWhoisActivities(lookup: DomainLookup) {
  return {
    /** One name: a failure to learn anything is an answer (confidence low), not an error. */
    async checkDomain(domain: string, mode: LookupMode): Promise<CheckedDomain> {
      const { check, cached } = await lookup.check(lookup.registrable(domain), mode);
      return { check: summarize(check), cached };
    },

    /**
     * Deprecated: names of one registry in one call, for bulk checks started before checks went one
     * name per activity (workflows/domain-check.ts). Remove once none of those can still be running.
     */
    async checkDomains(
      domains: string[],
      mode: LookupMode,
      concurrency: number,
    ): Promise<Record<string, CheckedDomain>> {
      const results: Record<string, CheckedDomain> = {};
      await inLanes(domains, concurrency, async (domain) => {
        const { check, cached } = await lookup.check(lookup.registrable(domain), mode);
        results[domain] = { check: summarize(check), cached };
        heartbeat(Object.keys(results).length);
      });
      return results;
    },
  };
}

export type WhoisActivities = ReturnType<typeof createWhoisActivities>;
