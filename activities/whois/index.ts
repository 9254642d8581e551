// Activities of the network pool for domain checks (bulk checks fan out to these).
import { heartbeat } from '@temporalio/activity';
import type { CheckedDomain, LookupMode } from '../../lib/jobs/domain-check.ts';
import type { DomainLookup } from './lookup.ts';
import { summarize } from './lookup.ts';

export function createWhoisActivities(lookup: DomainLookup) {
  return {
    /**
     * Checks names that share one registry, at most `concurrency` at a time (politeness: the workflow
     * puts each registry's names in one call). Per-name failures are answers (confidence low), not errors.
     */
    async checkDomains(domains: string[], mode: LookupMode, concurrency: number): Promise<Record<string, CheckedDomain>> {
      const results: Record<string, CheckedDomain> = {};
      let next = 0;
      const lane = async () => {
        while (next < domains.length) {
          const domain = domains[next++]!;
          const { check, cached } = await lookup.check(lookup.registrable(domain), mode);
          results[domain] = { check: summarize(check), cached };
          heartbeat(Object.keys(results).length);
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, domains.length)) }, lane));
      return results;
    },
  };
}

export type WhoisActivities = ReturnType<typeof createWhoisActivities>;
