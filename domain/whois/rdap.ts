// RDAP (RFC 9082/9083): `{base}/domain/<name>`, the base from IANA's bootstrap file (RFC 9224,
// data/rdap-dns.json) or RDAP_BASE_URL. A 404 from the TLD's own base URL means "not registered".
import fs from 'node:fs';
import { createGuardedFetch } from '../../lib/net/guarded-fetch.ts';
import type { Pace } from './pace.ts';
import { emptyParsedData, mentionsPremium, parseRdap } from './parse.ts';
import { failedAnswer, type RegistryAnswer } from './registry-answer.ts';

let bootstrap: Map<string, string> | undefined;

/** The RDAP base URL IANA lists for a TLD (https preferred), or null when the TLD has no RDAP service. */
export function bootstrapBase(tld: string): string | null {
  if (!bootstrap) {
    bootstrap = new Map();
    const file = JSON.parse(fs.readFileSync(new URL('./data/rdap-dns.json', import.meta.url), 'utf8')) as {
      services: Array<[string[], string[]]>;
    };
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
  /** NETWORK_ALLOW: a redirect leaves the trusted base URL, so it goes through the address guard. */
  allow: readonly string[];
  /** Waits for the RDAP host's turn (domain/whois/pace.ts); the wait counts in `timeoutMs`. */
  pace?: Pace;
}

/** An RDAP domain object is a few kilobytes; anything past this is not an answer. */
export const RDAP_MAX_BYTES = 1024 * 1024;

/** GET `url` from the trusted base: no automatic redirects, body read up to RDAP_MAX_BYTES. */
async function fetchTrusted(
  url: URL,
  signal: AbortSignal,
): Promise<{ status: number; location: string | null; text: string }> {
  const res = await fetch(url, {
    headers: { accept: 'application/rdap+json, application/json' },
    redirect: 'manual',
    signal,
  });
  const location = res.headers.get('location');
  if (!res.body || (res.status >= 300 && res.status < 400)) {
    await res.body?.cancel();
    return { status: res.status, location, text: '' };
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > RDAP_MAX_BYTES) throw new Error(`answer larger than ${RDAP_MAX_BYTES} bytes`);
    chunks.push(chunk);
  }
  return { status: res.status, location, text: Buffer.concat(chunks).toString('utf8') };
}

/** The RDAP answer for `domain`, or null when its TLD has no RDAP service. */
export async function rdapLookup(domain: string, tld: string, options: RdapOptions): Promise<RegistryAnswer | null> {
  const base = options.baseUrl ?? bootstrapBase(tld);
  if (!base) return null;
  const url = new URL(`domain/${encodeURIComponent(domain)}`, base.endsWith('/') ? base : `${base}/`);
  const server = url.host;
  const failed = (reason: string, verdict?: 'error' | 'rate_limited') => failedAnswer(server, reason, verdict);
  let res: { status: number; text: string };
  let text: string;
  const started = performance.now();
  // At most half of the time waiting for a turn: the other half is the query's.
  const refused = await options.pace?.(server, options.timeoutMs / 2);
  if (refused) return failed(refused, 'rate_limited');
  try {
    const signal = AbortSignal.timeout(Math.max(1, Math.round(options.timeoutMs - (performance.now() - started))));
    const first = await fetchTrusted(url, signal);
    // Some RDAP services redirect to the registry's own server: that hop is untrusted (guarded, bounded).
    if (first.status >= 300 && first.status < 400 && first.location) {
      const guarded = createGuardedFetch({
        allow: options.allow,
        timeoutMs: Math.max(1, Math.round(options.timeoutMs - (performance.now() - started))),
        maxBytes: RDAP_MAX_BYTES,
        maxRedirects: 3,
      });
      const hop = await guarded(new URL(first.location, url).href, {
        headers: { accept: 'application/rdap+json, application/json' },
      });
      res = { status: hop.status, text: hop.body.toString('utf8') };
    } else {
      res = first;
    }
    text = res.text;
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    return failed(
      timedOut
        ? `RDAP server ${server} did not answer within ${options.timeoutMs} ms`
        : `RDAP server ${server} failed: ${(err as Error).message}`,
    );
  }
  if (res.status === 404)
    return { verdict: 'available', server, raw: text, parsed: emptyParsedData(domain), premium: mentionsPremium(text) };
  if (res.status === 429) return failed(`RDAP server ${server} is rate-limiting (429)`, 'rate_limited');
  if (res.status !== 200) return failed(`RDAP server ${server} answered ${res.status}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return failed(`RDAP server ${server} answered something that is not JSON`);
  }
  if ((json as { objectClassName?: string }).objectClassName !== 'domain')
    return failed(`RDAP server ${server} answered an object that is not a domain`);
  return { verdict: 'registered', server, raw: text, parsed: parseRdap(json), premium: false };
}
