// Activities of the network pool for domain checks. A bulk check fans out to these: in full mode one
// name per call (registries are slow and paced: the workflow holds every answer as it comes, so a
// deadline answers with what it has), in the fast modes a batch of names per call, checked at most
// `concurrency` at once (an activity per name cost more in Temporal's round trips than the DNS answers).
import type { BulkAnswers, CheckedDomain, LookupMode } from '../../lib/jobs/domain-check.ts';
import { inLanes } from '../../lib/concurrency/lanes.ts';
import type { DomainLookup } from '../../domain/whois/lookup.ts';
import { summarize } from '../../domain/whois/lookup.ts';

export function createWhoisActivities(lookup: DomainLookup) {
  /** One name: a failure to learn anything is an answer (confidence low), not an error. */
  async function checkDomain(domain: string, mode: LookupMode): Promise<CheckedDomain> {
    const { check, cached } = await lookup.check(lookup.registrable(domain), mode);
    return { check: summarize(check), cached };
  }
  return {
    checkDomain,
    /** Names of one registry, at most `concurrency` at once; a name whose check throws is reported, not the batch. */
    async checkDomains(domains: string[], mode: LookupMode, concurrency: number): Promise<BulkAnswers> {
      const answers: BulkAnswers = {};
      await inLanes(domains, concurrency, async (domain) => {
        try {
          answers[domain] = await checkDomain(domain, mode);
        } catch (err) {
          answers[domain] = { error: `the check failed: ${(err as Error).message}` };
        }
      });
      return answers;
    },
  };
}

export type WhoisActivities = ReturnType<typeof createWhoisActivities>;
