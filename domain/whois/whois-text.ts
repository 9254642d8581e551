// Registration data from a registry's WHOIS text (no standard; the keys below are the ones the gTLD
// registries (ICANN's format) and the larger ccTLDs use): its fields, its referral, its verdict.
import { isoDate, type ParsedData, type RegistryVerdict } from './parse.ts';

const NOT_FOUND = [
  /^no match for/im,
  /^not found/im,
  /\bno data found\b/i,
  /\bobject does not exist\b/i,
  /^status:\s*(?:free|available)\b/im,
  /(?<!\bnot )\bavailable for registration\b/i,
  /\bno entries found\b/i,
  /^domain not found/im,
  /\bno matching record\b/i,
  /^%% no match/im,
  /\bthe queried object does not exist\b/i,
];

// A refusal to answer, whatever else the text says (a "No match" line before it is no answer either).
const RATE_LIMITED = [
  /\brate limit/i,
  /\blimit exceeded\b/i,
  /\bexceeded (?:the |your )?(?:query|maximum|allowed|limit)/i,
  /\btoo many (?:queries|requests|connections)\b/i,
  /\bquota\b/i,
  /\btry again later\b/i,
  /\bblacklisted\b/i,
  /\baccess (?:denied|refused)\b/i,
];

const KEYS = {
  domain_name: ['domain name', 'domain'],
  registrar: ['registrar', 'sponsoring registrar', 'registrar name', 'registrar organization'],
  creation_date: [
    'creation date',
    'created',
    'created on',
    'registered on',
    'registration time',
    'domain registration date',
    'registered',
  ],
  expiration_date: [
    'registry expiry date',
    'registrar registration expiration date',
    'expiration date',
    'expiry date',
    'expires on',
    'expires',
    'paid-till',
    'expiration time',
    'domain expiration date',
  ],
  updated_date: ['updated date', 'last updated', 'last modified', 'changed', 'last update', 'modified'],
  status: ['domain status', 'status', 'state'],
  name_servers: ['name server', 'nameserver', 'nameservers', 'nserver', 'name servers', 'dns'],
};

/** `key: value` pairs of a WHOIS answer, keys lower-cased; comment lines (%, #, >>>) skipped. */
export function whoisFields(text: string): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  let openKey: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s*(?:%|#|>>>)/.test(raw)) continue;
    const m = /^\s*([A-Za-z][A-Za-z0-9 ./_()-]{0,60}?)\s*:\s*(.*)$/.exec(raw);
    if (m && !/^https?$/i.test(m[1]!)) {
      const key = m[1]!.toLowerCase().replace(/\s+/g, ' ');
      const value = m[2]!.trim();
      if (value) fields.push([key, value]);
      openKey = value ? null : key; // "Name Servers:" followed by indented values
    } else if (openKey && /^\s+\S/.test(raw)) {
      fields.push([openKey, raw.trim()]);
    } else if (!raw.trim()) {
      openKey = null;
    }
  }
  return fields;
}

/** The host[:port] a WHOIS answer refers further to: IANA's `refer:`, or a registry's registrar server. */
export function whoisReferral(text: string): { kind: 'refer' | 'registrar'; server: string } | null {
  const fields = whoisFields(text);
  const pick = (key: string) => fields.find(([k]) => k === key)?.[1];
  const refer = pick('refer');
  if (refer) return normalizeServer(refer, 'refer');
  const registrar = pick('registrar whois server') ?? pick('whois server');
  return registrar ? normalizeServer(registrar, 'registrar') : null;
}

function normalizeServer(
  value: string,
  kind: 'refer' | 'registrar',
): { kind: 'refer' | 'registrar'; server: string } | null {
  // Accepts host, host:port and whois://host[:port][/]; web addresses are not WHOIS servers.
  const v = value
    .trim()
    .replace(/^(?:r?whois):\/\//i, '')
    .replace(/\/$/, '')
    .toLowerCase();
  if (!/^[a-z0-9.-]+(?::\d{1,5})?$/.test(v) || !v.includes('.')) return null;
  return { kind, server: v };
}

/**
 * Where a refusal is written: a refusal is a short answer, or says so in its first paragraph. The terms of
 * use that follow a real answer ("... queries may be rate limited; try again later ...") are not one.
 */
function refusalZone(text: string): string {
  if (text.length <= 600) return text;
  // The first paragraph (at most 5 lines): registries put their terms after a blank line.
  return text
    .trimStart()
    .split(/\r?\n\s*\r?\n/)[0]!
    .split(/\r?\n/)
    .slice(0, 5)
    .join('\n');
}

export function whoisVerdict(text: string): RegistryVerdict {
  const keys = new Set(whoisFields(text).map(([k]) => k));
  const has = (list: string[]) => list.some((k) => keys.has(k));
  // Dates are registration data: their presence wins over boilerplate that mentions availability.
  if (has(KEYS.creation_date) || has(KEYS.expiration_date)) return 'registered';
  if (RATE_LIMITED.some((r) => r.test(refusalZone(text)))) return 'rate_limited';
  // Not registered: "no match" and friends, or held back by the registry (lookup.ts tells them apart).
  if (NOT_FOUND.some((r) => r.test(text)) || mentionsReserved(text)) return 'available';
  return has(KEYS.registrar) || has(KEYS.name_servers) ? 'registered' : 'unclear';
}

export function parseWhois(text: string): ParsedData {
  const fields = whoisFields(text);
  const first = (keys: string[]) => {
    for (const key of keys) {
      const hit = fields.find(([k]) => k === key);
      if (hit) return hit[1];
    }
    return undefined;
  };
  const all = (keys: string[]) => fields.filter(([k]) => keys.includes(k)).map(([, v]) => v);
  const unique = (values: string[]) => [...new Set(values)];
  return {
    domain_name: first(KEYS.domain_name)?.toLowerCase() ?? null,
    registrar: first(KEYS.registrar) ?? null,
    creation_date: isoDate(first(KEYS.creation_date)),
    expiration_date: isoDate(first(KEYS.expiration_date)),
    updated_date: isoDate(first(KEYS.updated_date)),
    // "clientTransferProhibited https://icann.org/epp#clientTransferProhibited" -> the status code only.
    status: unique(
      all(KEYS.status)
        .map((s) => s.split(/\s+(?:https?:\/\/|\()/)[0]!.trim())
        .filter(Boolean),
    ),
    name_servers: unique(
      all(KEYS.name_servers)
        .flatMap((v) => v.split(/[\s,]+/))
        .map((s) => s.toLowerCase().replace(/\.$/, ''))
        .filter((s) => /^[a-z0-9.-]+\.[a-z0-9-]+$/.test(s) && !/^\d+\.\d+\.\d+\.\d+$/.test(s)),
    ),
    registrant: null,
  };
}

/**
 * Registry evidence that an unregistered name is held back: a status of reserved/restricted/blocked, a
 * line that starts by saying so, or "not available for registration" (legal boilerplate such as
 * "All rights reserved" does not count).
 */
export function mentionsReserved(text: string): boolean {
  const held = /\b(?:reserved|restricted|blocked)\b/i;
  return (
    whoisFields(text).some(([k, v]) => KEYS.status.includes(k) && held.test(v)) ||
    /^[^\n]{0,80}?\b(?:is|has been)\s+(?:reserved|restricted|blocked)\b/im.test(text) ||
    /\bnot available for registration\b/i.test(text)
  );
}
