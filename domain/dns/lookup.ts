// DNS records of a name, one query per type (many servers refuse ANY, RFC 8482), through the
// resolvers of DNS_SERVERS or the system's.
import { Resolver } from 'node:dns/promises';
import { NotFoundError, UpstreamError } from '../../lib/errors.ts';
import type { DnsType } from '../../contract/lookups.ts';

export interface SoaRecord {
  primary_ns: string;
  hostmaster: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum_ttl: number;
}

export interface DnsRecords {
  A?: string[];
  AAAA?: string[];
  MX?: Array<{ priority: number; host: string }>;
  NS?: string[];
  TXT?: string[];
  CNAME?: string[];
  SOA?: SoaRecord | null;
}

export interface DnsLookupOptions {
  /** `host:port` resolvers; the system's when absent. */
  servers?: readonly string[];
  /** Per try, in ms; two tries per server. */
  timeoutMs?: number;
}

// c-ares codes: ENODATA = the name exists without records of that type; ENOTFOUND = NXDOMAIN.
const NO_DATA = new Set(['ENODATA']);
const NO_SUCH_NAME = new Set(['ENOTFOUND']);
const TIMED_OUT = new Set(['ETIMEOUT']);

export function createDnsLookup(options: DnsLookupOptions = {}) {
  const resolver = () => {
    const r = new Resolver({ timeout: options.timeoutMs ?? 2000, tries: 2 });
    if (options.servers?.length) r.setServers([...options.servers]);
    return r;
  };

  async function query(r: Resolver, domain: string, type: DnsType): Promise<DnsRecords[DnsType] | 'nxdomain'> {
    try {
      switch (type) {
        case 'A':
          return await r.resolve4(domain);
        case 'AAAA':
          return await r.resolve6(domain);
        case 'MX':
          return (await r.resolveMx(domain))
            .sort((a, b) => a.priority - b.priority)
            .map((m) => ({ priority: m.priority, host: m.exchange }));
        case 'NS':
          return await r.resolveNs(domain);
        case 'TXT':
          // A TXT record is a list of strings of at most 255 bytes; its text is their concatenation.
          return (await r.resolveTxt(domain)).map((chunks) => chunks.join(''));
        case 'CNAME':
          return await r.resolveCname(domain);
        case 'SOA': {
          const s = await r.resolveSoa(domain);
          return {
            primary_ns: s.nsname,
            hostmaster: s.hostmaster,
            serial: s.serial,
            refresh: s.refresh,
            retry: s.retry,
            expire: s.expire,
            minimum_ttl: s.minttl,
          };
        }
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (NO_DATA.has(code)) return type === 'SOA' ? null : [];
      if (NO_SUCH_NAME.has(code)) return 'nxdomain';
      if (TIMED_OUT.has(code)) throw new UpstreamError(`DNS servers did not answer for ${domain} ${type}`, true);
      throw new UpstreamError(`DNS lookup of ${domain} ${type} failed: ${code || (err as Error).message}`);
    }
  }

  /** Records of the asked types; 404 when the name does not exist (NXDOMAIN for every type). */
  return async function lookup(domain: string, types: readonly DnsType[]): Promise<DnsRecords> {
    const r = resolver();
    const answers = await Promise.all(types.map((t) => query(r, domain, t)));
    if (answers.every((a) => a === 'nxdomain')) throw new NotFoundError(`${domain} does not exist (NXDOMAIN)`);
    const records: Record<string, unknown> = {};
    for (const [i, t] of types.entries())
      records[t] = answers[i] === 'nxdomain' ? (t === 'SOA' ? null : []) : answers[i];
    return records as DnsRecords;
  };
}

export type DnsLookup = ReturnType<typeof createDnsLookup>;
