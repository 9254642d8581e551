// One name's check as the domain check activity answers it (activities/whois): the summary a bulk
// check carries around, without the record and raw answer. What the bulk check's stub activity
// answers, and what the activity's own tests expect of it.
import type { CheckSummary } from '../../lib/jobs/index.ts';

/**
 * The summary of `domain`'s check (its suffix: all after the first label): free by RDAP with high
 * confidence, nothing reserved, premium or parked, no problems; `over` sets the rest.
 */
export const checkSummary = (domain: string, over: Partial<CheckSummary> = {}): CheckSummary => ({
  domain,
  suffix: domain.slice(domain.indexOf('.') + 1),
  available: true,
  is_registered: false,
  is_reserved: false,
  reserved_reason: null,
  registry_premium: false,
  aftermarket: false,
  confidence: 'high',
  evidence: 'rdap',
  whois_server: 'rdap.loopback.test',
  problems: [],
  ...over,
});
