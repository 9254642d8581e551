// Activities of the network pool for domain checks (bulk checks fan out to these, one name per call,
// so the workflow holds every answer as it comes and a deadline can answer with what it has).
import type { CheckedDomain, LookupMode } from '../../lib/jobs/domain-check.ts';
import type { DomainLookup } from '../../domain/whois/lookup.ts';
import { summarize } from '../../domain/whois/lookup.ts';

export function createWhoisActivities(lookup: DomainLookup) {
  return {
    /** One name: a failure to learn anything is an answer (confidence low), not an error. */
    async checkDomain(domain: string, mode: LookupMode): Promise<CheckedDomain> {
      const { check, cached } = await lookup.check(lookup.registrable(domain), mode);
      return { check: summarize(check), cached };
    },
  };
}

export type WhoisActivities = ReturnType<typeof createWhoisActivities>;
