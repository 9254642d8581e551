// Domain availability: which evidence each mode uses, how sure it is, and how long it is kept
// (check-cache.ts).
//
// | mode              | evidence                                           | confidence                      |
// |-------------------|----------------------------------------------------|---------------------------------|
// | full              | RDAP, then WHOIS when RDAP has no service or fails | high when a registry answered   |
// |                   | then DNS when both fail                            | medium when DNS shows a         |
// |                   |                                                    | delegation, else low (unknown)  |
// | fast              | DNS (NS of the name): delegated or NXDOMAIN        | medium; low (unknown) on errors |
// | availability_only | the same DNS evidence, without record details      | medium; low (unknown) on errors |
//
// fast and availability_only also answer from a cached registry answer, which is better evidence.
// Rule-based reservations (RFC 6761, ICANN Specification 5: reserved.ts) hold back names the
// registry did not report registered.
import { createDnsLookup } from '../dns/lookup.ts';
import type { Config } from '../../lib/config.ts';
import { NotFoundError } from '../../lib/errors.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { readCache, writeCache } from './check-cache.ts';
import { emptyParsedData, type ParsedData } from './parse.ts';
import { mentionsReserved } from './whois-text.ts';
import { createPace, type Pace } from './pace.ts';
import { bootstrapBase, rdapLookup } from './rdap.ts';
import type { RegistryAnswer } from './registry-answer.ts';
import { registrableDomain, SPECIAL_USE_TLDS, type RegistrableDomain } from './registrable.ts';
import { isAbsoluteReservation, reservedReason } from './reserved.ts';
import { registryWhoisServer, whoisLookup } from './whois-client.ts';
import type { CheckSummary, Confidence, LookupMode } from '../../lib/jobs/domain-check.ts';

/**
 * Aftermarket rule: a registered name delegated to the name servers of a domain marketplace's
 * for-sale landing pages is offered for resale. The marketplaces and their name-server domains:
 * Sedo, Afternic (GoDaddy), Dan.com, ParkingCrew, Bodis, Above.com, HugeDomains and NameBright,
 * DomainMarket, Atom (formerly Squadhelp).
 */
export const AFTERMARKET_NS_DOMAINS = [
  'sedoparking.com',
  'afternic.com',
  'dan.com',
  'parkingcrew.net',
  'bodis.com',
  'above.com',
  'hugedomains.com',
  'namebrightdns.com',
  'domainmarket.com',
  'atom.com',
  'squadhelp.com',
];

/** What is known about one name: currency-independent, cacheable. A bulk check carries its summary. */
export interface DomainCheck extends CheckSummary {
  raw_data: string;
  parsed_data: ParsedData;
}

export function summarize({ raw_data: _raw, parsed_data: _parsed, ...summary }: DomainCheck): CheckSummary {
  return summary;
}

export interface CachedCheck<C extends CheckSummary = DomainCheck> {
  check: C;
  cached: boolean;
  /** Unix seconds when the cached copy expires (now for a result that was not cached). */
  cacheExpires: number;
}

export interface DomainLookupDeps {
  kv: KvStore;
  dnsServers?: readonly string[];
  whoisServer?: string;
  rdapBaseUrl?: string;
  allow: readonly string[];
  timeoutMs: number;
  /** Spaces the queries to each registry server (REGISTRY_RATE); unset = no spacing (unit tests). */
  pace?: Pace;
}

export function createDomainLookup(deps: DomainLookupDeps) {
  // Two tries, c-ares doubling the wait for the second: t + 2t within the budget, so a lost UDP packet is retried.
  const dns = createDnsLookup({ servers: deps.dnsServers, timeoutMs: Math.max(50, Math.floor(deps.timeoutMs / 3)) });
  const dnsLabel = `dns ${deps.dnsServers?.join(',') ?? 'system resolver'}`;

  /** NS of the name: delegated (registered), NXDOMAIN (not in the TLD's zone), or unknown. */
  async function dnsEvidence(name: RegistrableDomain): Promise<{
    verdict: 'registered' | 'available' | 'unknown';
    nameServers: string[];
    raw: string;
    problem?: string;
  }> {
    try {
      const { NS = [] } = await dns(name.domain, ['NS']);
      // A name that exists without NS at its apex is still in the zone: registered.
      return {
        verdict: 'registered',
        nameServers: NS.map((n) => n.toLowerCase()),
        raw: NS.length
          ? NS.map((n) => `${name.domain}.\tNS\t${n}.`).join('\n')
          : `${name.domain}.\tNOERROR, no NS records`,
      };
    } catch (err) {
      if (err instanceof NotFoundError)
        return { verdict: 'available', nameServers: [], raw: `${name.domain}.\tNXDOMAIN` };
      return { verdict: 'unknown', nameServers: [], raw: '', problem: (err as Error).message };
    }
  }

  function base(name: RegistrableDomain): DomainCheck {
    return {
      domain: name.domain,
      suffix: name.suffix,
      available: null,
      is_registered: null,
      is_reserved: false,
      reserved_reason: null,
      registry_premium: false,
      aftermarket: false,
      confidence: 'low',
      evidence: 'dns',
      whois_server: dnsLabel,
      raw_data: '',
      parsed_data: emptyParsedData(name.domain),
      problems: [],
    };
  }

  /** Applies the reservation rules and the aftermarket rule to what the evidence said. */
  function finish(name: RegistrableDomain, check: DomainCheck): DomainCheck {
    if (check.is_registered !== true) {
      const rule = reservedReason(name);
      if (rule) {
        check.is_reserved = true;
        check.reserved_reason = rule;
        // RFC 6761 is absolute. A Specification 5 name may have been released by its registry: when
        // no evidence answered (is_registered null), whether it can be had stays unknown.
        // example.com/.net/.org are IANA's (registered, held for documentation); special-use TLDs have no registry.
        if (isAbsoluteReservation(rule))
          Object.assign(check, {
            available: false,
            is_registered: !SPECIAL_USE_TLDS.has(name.tld),
            confidence: 'high',
          });
        else if (check.is_registered === false) check.available = false;
      }
    }
    check.aftermarket =
      check.is_registered === true &&
      check.parsed_data.name_servers.some((ns) => AFTERMARKET_NS_DOMAINS.some((d) => ns === d || ns.endsWith(`.${d}`)));
    return check;
  }

  function fromRegistry(name: RegistrableDomain, answer: RegistryAnswer, evidence: 'rdap' | 'whois'): DomainCheck {
    const check = {
      ...base(name),
      evidence,
      whois_server: answer.server,
      raw_data: answer.raw,
      parsed_data: answer.parsed,
      confidence: 'high' as Confidence,
    };
    if (answer.verdict === 'registered') {
      check.available = false;
      check.is_registered = true;
    } else {
      check.is_registered = false;
      check.registry_premium = answer.premium;
      if (mentionsReserved(answer.raw)) {
        check.available = false;
        check.is_reserved = true;
        check.reserved_reason = `the registry (${answer.server}) holds it back`;
      } else {
        check.available = true;
      }
    }
    return check;
  }

  async function registryCheck(name: RegistrableDomain): Promise<DomainCheck> {
    const problems: string[] = [];
    const rdap = await rdapLookup(name.domain, name.tld, {
      baseUrl: deps.rdapBaseUrl,
      timeoutMs: deps.timeoutMs,
      allow: deps.allow,
      pace: deps.pace,
    });
    if (rdap && (rdap.verdict === 'registered' || rdap.verdict === 'available'))
      return fromRegistry(name, rdap, 'rdap');
    if (rdap?.reason) problems.push(rdap.reason);
    const whois = await whoisLookup(name.domain, name.tld, {
      server: deps.whoisServer,
      allow: deps.allow,
      timeoutMs: deps.timeoutMs,
      pace: deps.pace,
    });
    if (whois.verdict === 'registered' || whois.verdict === 'available') return fromRegistry(name, whois, 'whois');
    problems.push(whois.reason ?? `WHOIS server ${whois.server} gave no clear answer`);

    // Both registries failed: a delegation in DNS still proves the name is registered.
    const dns = await dnsEvidence(name);
    const check = { ...base(name), whois_server: whois.server, raw_data: whois.raw || rdap?.raw || dns.raw, problems };
    if (dns.problem) problems.push(dns.problem);
    if (dns.verdict === 'registered') {
      Object.assign(check, {
        available: false,
        is_registered: true,
        confidence: 'medium',
        raw_data: dns.raw,
        whois_server: dnsLabel,
      });
      check.parsed_data.name_servers = dns.nameServers;
    }
    return check;
  }

  async function dnsCheck(name: RegistrableDomain): Promise<DomainCheck> {
    const dns = await dnsEvidence(name);
    const check = base(name);
    if (dns.problem) check.problems.push(dns.problem);
    if (dns.verdict !== 'unknown') {
      check.confidence = 'medium';
      check.available = dns.verdict === 'available';
      check.is_registered = dns.verdict === 'registered';
    }
    check.parsed_data.name_servers = dns.nameServers;
    check.raw_data = dns.raw;
    return check;
  }

  /** Whether `name` can be registered, by the evidence `mode` allows, from the cache when it has it. */
  async function check(name: RegistrableDomain, mode: LookupMode): Promise<CachedCheck> {
    const cached = await cachedOnly(name, mode);
    if (cached) return cached;
    const result = finish(name, mode === 'full' ? await registryCheck(name) : await dnsCheck(name));
    // A full check that fell back to DNS is DNS-grade evidence: cached as such, so the next full check asks the
    // registry again.
    const tier = result.evidence === 'rdap' || result.evidence === 'whois' ? 'registry' : 'dns';
    return { check: result, cached: false, cacheExpires: await writeCache(deps.kv, tier, result) };
  }

  /**
   * What `check` answers without asking anyone, or null: RFC 6761 names (special-use TLDs,
   * example.com/.net/.org) by rule, others from the cache.
   */
  async function cachedOnly(name: RegistrableDomain, mode: LookupMode): Promise<CachedCheck | null> {
    const rule = reservedReason(name);
    if (rule && isAbsoluteReservation(rule)) {
      return {
        check: finish(name, { ...base(name), evidence: 'rule', whois_server: 'none (RFC 6761 reserved name)' }),
        cached: false,
        cacheExpires: Math.floor(Date.now() / 1000),
      };
    }
    return (
      (await readCache(deps.kv, 'registry', name.domain)) ??
      (mode === 'full' ? null : await readCache(deps.kv, 'dns', name.domain))
    );
  }

  /**
   * Who answers for `name` in `mode`, for politeness: the registry (its RDAP host, else its WHOIS
   * server) in full mode; the DNS resolvers otherwise.
   */
  function answeredBy(name: RegistrableDomain, mode: LookupMode): string {
    if (mode !== 'full') return dnsLabel;
    const rdap = deps.rdapBaseUrl ?? bootstrapBase(name.tld);
    return rdap ? new URL(rdap).host : (deps.whoisServer ?? registryWhoisServer(name.tld) ?? `whois for .${name.tld}`);
  }

  return { check, cachedOnly, answeredBy, registrable: registrableDomain };
}

export type DomainLookup = ReturnType<typeof createDomainLookup>;

/**
 * The lookup as configured (DNS_SERVERS, WHOIS_SERVER, RDAP_BASE_URL, NETWORK_ALLOW, LOOKUP_TIMEOUT_MS,
 * REGISTRY_RATE(S)).
 */
export function createConfiguredDomainLookup(config: Config, kv: KvStore): DomainLookup {
  return createDomainLookup({
    kv,
    dnsServers: config.dnsServers,
    whoisServer: config.whoisServer,
    rdapBaseUrl: config.rdapBaseUrl,
    allow: config.networkAllow,
    timeoutMs: config.lookupTimeoutMs,
    pace: createPace(kv, config.registryRate),
  });
}
