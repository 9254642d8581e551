// RDAP (RFC 9082/9083): `{base}/domain/<name>`, the base from IANA's bootstrap file (RFC 9224,
// data/rdap-dns.json) or RDAP_BASE_URL. A 404 from the TLD's own base URL means "not registered".
import fs from 'node:fs';
import { emptyParsedData, mentionsPremium, parseRdap } from './parse.ts';
import type { RegistryAnswer } from './registry-answer.ts';

let bootstrap: Map<string, string> | undefined;

/** The RDAP base URL IANA lists for a TLD (https preferred), or null when the TLD has no RDAP service. */
export function bootstrapBase(tld: string): string | null {
  if (!bootstrap) {
    bootstrap = new Map();
    const file = JSON.parse(fs.readFileSync(new URL('./data/rdap-dns.json', import.meta.url), 'utf8')) as { services: Array<[string[], string[]]> };
    for (const [tlds, urls] of file.services) {
      const url = urls.find((u) => u.startsWith('https://')) ?? urls[0];
      if (url) for (const t of tlds) bootstrap.set(t.toLowerCase(), url);
    }
  }
  return bootstrap.get(tld) ?? null;
}

export interface RdapOptions {
  /** RDAP_BASE_URL: every query goes there. */
  baseUrl?: string;
  timeoutMs: number;
}

/** The RDAP answer for `domain`, or null when its TLD has no RDAP service. */
export async function rdapLookup(domain: string, tld: string, options: RdapOptions): Promise<RegistryAnswer | null> {
  const base = options.baseUrl ?? bootstrapBase(tld);
  if (!base) return null;
  const url = new URL(`domain/${encodeURIComponent(domain)}`, base.endsWith('/') ? base : `${base}/`);
  const server = url.host;
  const failed = (reason: string, verdict: 'error' | 'rate_limited' = 'error'): RegistryAnswer => ({ verdict, server, raw: '', parsed: emptyParsedData(), premium: false, reason });
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { headers: { accept: 'application/rdap+json, application/json' }, signal: AbortSignal.timeout(options.timeoutMs) });
    text = await res.text();
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    return failed(timedOut ? `RDAP server ${server} did not answer within ${options.timeoutMs} ms` : `RDAP server ${server} failed: ${(err as Error).message}`);
  }
  if (res.status === 404) return { verdict: 'available', server, raw: text, parsed: emptyParsedData(domain), premium: mentionsPremium(text) };
  if (res.status === 429) return failed(`RDAP server ${server} is rate-limiting (429)`, 'rate_limited');
  if (res.status !== 200) return failed(`RDAP server ${server} answered ${res.status}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return failed(`RDAP server ${server} answered something that is not JSON`);
  }
  if ((json as { objectClassName?: string }).objectClassName !== 'domain') return failed(`RDAP server ${server} answered an object that is not a domain`);
  return { verdict: 'registered', server, raw: text, parsed: parseRdap(json), premium: false };
}
