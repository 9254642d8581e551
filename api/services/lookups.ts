// Lookups answered in the request (ARCHITECTURE.md: the API calls the domain code directly). Built
// once per process: the IP database and the resolvers are not rebuilt per request or per MCP session.
import { DNS_TYPES, type DnsQuery, type DnsType } from '../../contract/lookups.ts';
import { createDnsLookup } from '../../domain/dns/lookup.ts';
import { createHeaderCheck } from '../../domain/http-headers/check-url.ts';
import { createIpInfo } from '../../domain/ip-info/lookup.ts';
import type { Config } from '../../lib/config.ts';
import { normalizeDomain } from '../../lib/domain-name.ts';
import { plainIp } from '../../lib/net/client-ip.ts';

export function lookupService({ config }: { config: Pick<Config, 'dnsServers' | 'networkAllow'> }) {
  const dnsLookup = createDnsLookup({ servers: config.dnsServers });
  const ipInfo = createIpInfo({ dnsServers: config.dnsServers });
  const headerCheck = createHeaderCheck({ allow: config.networkAllow });
  return {
    async dns(q: DnsQuery) {
      const domain = normalizeDomain(q.domain);
      const types: readonly DnsType[] = q.type === 'ALL' ? DNS_TYPES : [q.type];
      return { domain, type: q.type, records: await dnsLookup(domain, types) };
    },
    async ip(ip: string) {
      const address = plainIp(ip);
      return { ip: address, data: await ipInfo(address) };
    },
    headers: (url: string) => headerCheck(url),
  };
}

export type LookupService = ReturnType<typeof lookupService>;
