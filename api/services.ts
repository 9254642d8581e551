// The lookup services, built once per configuration and shared by the REST routes and the MCP tools
// (the IP database and the resolvers are not rebuilt per request or per MCP session).
import { createDnsLookup } from '../activities/dns/lookup.ts';
import { createHeaderCheck } from '../activities/http-headers/check-url.ts';
import { createIpInfo } from '../activities/ip-info/lookup.ts';
import type { Config } from '../lib/config.ts';

export interface LookupServices {
  dnsLookup: ReturnType<typeof createDnsLookup>;
  ipInfo: ReturnType<typeof createIpInfo>;
  headerCheck: ReturnType<typeof createHeaderCheck>;
}

const built = new WeakMap<Config, LookupServices>();

export function lookupServices(config: Config): LookupServices {
  let services = built.get(config);
  if (!services) {
    services = {
      dnsLookup: createDnsLookup({ servers: config.dnsServers }),
      ipInfo: createIpInfo({ dnsServers: config.dnsServers }),
      headerCheck: createHeaderCheck({ allow: config.networkAllow }),
    };
    built.set(config, services);
  }
  return services;
}
