// WHOIS (RFC 3912): a TCP connection to port 43, the query and CRLF, the answer until the server closes.
// The chain: the first server (WHOIS_SERVER, else the TLD's registry server from data/whois-servers.json,
// else whois.iana.org); an IANA-style `refer:` moves to the registry; a registry's `Registrar WHOIS
// Server:` adds the registrar's answer. Referred servers come from answers, not from the operator, so
// they pass the SSRF address policy (NETWORK_ALLOW exempts, as everywhere) and are asked on port 43 only
// (on another, only at an address NETWORK_ALLOW names).
import dns from 'node:dns';
import fs from 'node:fs';
import net, { isIP } from 'node:net';
import { createAddressPolicy } from '../../lib/net/address-policy.ts';
import { bareHost } from '../../lib/net/bare-host.ts';
import { emptyParsedData, mentionsPremium, mergeParsed } from './parse.ts';
import { parseWhois, whoisReferral, whoisVerdict } from './whois-text.ts';
import type { Pace } from './pace.ts';
import { failedAnswer, type RegistryAnswer } from './registry-answer.ts';

export const IANA_WHOIS = 'whois.iana.org';
/** Larger answers are cut here (the biggest real ones are a few tens of kB). */
const MAX_ANSWER_BYTES = 256 * 1024;
const MAX_HOPS = 3;

let servers: Record<string, string | null> | undefined;

/** The registry WHOIS server of a TLD from the shipped list, or null. */
export function registryWhoisServer(tld: string): string | null {
  servers ??= JSON.parse(fs.readFileSync(new URL('./data/whois-servers.json', import.meta.url), 'utf8')) as Record<
    string,
    string | null
  >;
  return servers[tld] ?? null;
}

/** RFC 3912's port: the only one a server named by an answer is asked on. */
const WHOIS_PORT = 43;

function splitServer(server: string): { host: string; port: number } {
  const m = /^(.*):(\d{1,5})$/.exec(server);
  return m ? { host: bareHost(m[1]!), port: Number(m[2]) } : { host: server, port: WHOIS_PORT };
}

export interface WhoisQueryOptions {
  timeoutMs: number;
  /**
   * For servers named by an answer: refuse addresses outside the SSRF policy, and any port but 43 on an
   * address NETWORK_ALLOW does not name (an answer must not point the query at another service's port).
   */
  guard?: { allow: readonly string[] };
}

/** One WHOIS exchange; rejects on connection errors and timeouts. */
export function whoisQuery(server: string, query: string, options: WhoisQueryOptions): Promise<string> {
  const { host, port } = splitServer(server);
  const policy = options.guard ? createAddressPolicy(options.guard.allow) : null;
  return new Promise((resolve, reject) => {
    const onPort = `port ${port}: a server an answer names is asked on port ${WHOIS_PORT}`;
    const refusal = (address: string): string | null =>
      policy && (policy.refusal(address) ?? (port === WHOIS_PORT || policy.exempt(address) ? null : onPort));
    // No address can be exempt: refused before the name is looked up.
    if (policy && !isIP(host) && port !== WHOIS_PORT && !options.guard?.allow.length)
      return reject(new Error(`WHOIS server ${server} not allowed: ${onPort}`));
    if (policy && isIP(host)) {
      const why = refusal(host);
      if (why) return reject(new Error(`WHOIS server ${server} not allowed: ${why}`));
    }
    const lookup: net.LookupFunction | undefined = policy
      ? (hostname, opts, callback) =>
          dns.lookup(hostname, { all: true }, (err, addresses) => {
            if (err) return callback(err, '', 4);
            const refused = addresses.map((a) => refusal(a.address)).find(Boolean);
            if (refused) return callback(new Error(`WHOIS server ${server} not allowed: ${refused}`), '', 4);
            if ((opts as { all?: boolean }).all) return callback(null, addresses);
            callback(null, addresses[0]!.address, addresses[0]!.family);
          })
      : undefined;
    const socket = net.connect({ host, port, lookup });
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(
      () =>
        socket.destroy(
          Object.assign(new Error(`WHOIS server ${server} did not answer within ${options.timeoutMs} ms`), {
            code: 'ETIMEDOUT',
          }),
        ),
      options.timeoutMs,
    );
    socket.on('connect', () => socket.write(`${query}\r\n`));
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
      else socket.destroy();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (!socket.errored) resolve(Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8'));
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

export interface WhoisOptions {
  /** WHOIS_SERVER: the first server asked, instead of the shipped list and IANA. */
  server?: string;
  allow: readonly string[];
  timeoutMs: number;
  /** Waits for each server's turn (domain/whois/pace.ts); the waits count in `timeoutMs`. */
  pace?: Pace;
}

class PaceRefused extends Error {}

/** The registry's WHOIS answer for `domain` (with the registrar's merged in when it names one). */
export async function whoisLookup(domain: string, tld: string, options: WhoisOptions): Promise<RegistryAnswer> {
  let server = options.server ?? registryWhoisServer(tld) ?? IANA_WHOIS;
  let trusted = true;
  const deadline = performance.now() + options.timeoutMs;
  const left = () => Math.max(1, Math.round(deadline - performance.now()));
  const ask = async (s: string) => {
    // At most half of what is left waiting for a turn: the other half is the query's.
    const refused = await options.pace?.(s, left() / 2);
    if (refused) throw new PaceRefused(refused);
    return whoisQuery(s, domain, { timeoutMs: left(), guard: trusted ? undefined : { allow: options.allow } });
  };
  const failed = (reason: string, verdict?: 'error' | 'rate_limited') => failedAnswer(server, reason, verdict);

  let text: string;
  for (let hop = 0; ; hop++) {
    try {
      text = await ask(server);
    } catch (err) {
      return failed((err as Error).message, err instanceof PaceRefused ? 'rate_limited' : 'error');
    }
    const referral = whoisReferral(text);
    // An IANA-style answer is about the TLD: it refers on and has no data on the name.
    if (referral?.kind === 'refer' && referral.server !== server && hop < MAX_HOPS) {
      server = referral.server;
      trusted = false;
      continue;
    }
    break;
  }

  // whois.iana.org answers about the TLD itself when it has no registry server to refer to: its
  // dates and name servers are the TLD's, not evidence about the name.
  if (server === IANA_WHOIS) return failed(`no WHOIS server is known for .${tld}`);

  const verdict = whoisVerdict(text);
  const answer: RegistryAnswer = {
    verdict,
    server,
    raw: text,
    parsed: verdict === 'registered' ? parseWhois(text) : emptyParsedData(domain),
    premium: verdict === 'available' && mentionsPremium(text),
  };
  if (verdict === 'rate_limited') answer.reason = `WHOIS server ${server} is rate-limiting`;
  if (!text.trim()) answer.reason = `WHOIS server ${server} answered nothing`;
  if (verdict !== 'registered') return answer;

  // The registrar's server has the registrar's data (and, for thin registries, all of it).
  const registrar = whoisReferral(text);
  if (registrar?.kind === 'registrar' && registrar.server !== server) {
    trusted = false;
    try {
      const registrarText = await ask(registrar.server);
      if (whoisVerdict(registrarText) === 'registered') {
        answer.parsed = mergeParsed(answer.parsed, parseWhois(registrarText));
        answer.raw = `${text.trimEnd()}\n\n# ${registrar.server}\n${registrarText}`;
      }
    } catch {
      // The registry's answer stands on its own.
    }
  }
  return answer;
}
