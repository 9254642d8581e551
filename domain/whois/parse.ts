// Registration data from the registries' answers: the record both give, their dates, RDAP JSON
// (RFC 9083); WHOIS text, which has no standard, is read by whois-text.ts.

export interface ParsedData {
  domain_name: string | null;
  registrar: string | null;
  creation_date: string | null;
  expiration_date: string | null;
  updated_date: string | null;
  status: string[];
  name_servers: string[];
  registrant: null;
}

export function emptyParsedData(domainName: string | null = null): ParsedData {
  return {
    domain_name: domainName,
    registrar: null,
    creation_date: null,
    expiration_date: null,
    updated_date: null,
    status: [],
    name_servers: [],
    registrant: null,
  };
}

/** What a registry's answer says about a name. */
export type RegistryVerdict = 'registered' | 'available' | 'rate_limited' | 'unclear';

// ---------------------------------------------------------------- dates

/** Month abbreviations in order: a month's number is its place in the list, plus one. */
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const monthNumber = (abbr: string): string | null => {
  const i = MONTHS.indexOf(abbr.toLowerCase());
  return i < 0 ? null : String(i + 1).padStart(2, '0');
};

/** ISO 8601 (UTC) from the date spellings registries use, or null. */
export function isoDate(value: string | undefined): string | null {
  // A registry's date is a few dozen characters: a longer value is none (and the expressions below
  // stay linear in what they read: a run of spaces made them quadratic).
  if (!value || value.length > 100) return null;
  let v = value
    .trim()
    .replace(/\s*\((?:UTC|GMT)\)$/i, '')
    .replace(/\s+(?:UTC|GMT)$/i, 'Z');
  // 02-Jan-2024 / 02-jan-2024 12:00:00
  let m = /^(\d{1,2})[-. ]([A-Za-z]{3})[-. ](\d{4})(.*)$/.exec(v);
  const month = m && monthNumber(m[2]!);
  if (m && month) v = `${m[3]}-${month}-${m[1]!.padStart(2, '0')}${m[4]}`;
  // 2024.01.02 / 2024/01/02 (with an optional time)
  m = /^(\d{4})[./](\d{2})[./](\d{2})(.*)$/.exec(v);
  if (m) v = `${m[1]}-${m[2]}-${m[3]}${m[4]}`;
  // 02.01.2024 / 02/01/2024 (day first, as the European registries write it)
  m = /^(\d{2})[./](\d{2})[./](\d{4})(.*)$/.exec(v);
  if (m) v = `${m[3]}-${m[2]}-${m[1]}${m[4]}`;
  // 2024-01-02 12:00:00 -> 2024-01-02T12:00:00 (and UTC when no zone is given)
  v = v.replace(/^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)/, '$1T$2');
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(v)) v += 'Z';
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) v += 'T00:00:00Z';
  // Only the forms above: Date.parse alone reads too much ("before 1995" would be a date).
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v)) return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

// ---------------------------------------------------------------- RDAP

interface RdapEntity {
  roles?: string[];
  vcardArray?: [string, Array<[string, unknown, string, unknown]>];
  publicIds?: Array<{ type?: string; identifier?: string }>;
  handle?: string;
}

interface RdapDomain {
  objectClassName?: string;
  ldhName?: string;
  unicodeName?: string;
  status?: string[];
  events?: Array<{ eventAction?: string; eventDate?: string }>;
  entities?: RdapEntity[];
  nameservers?: Array<{ ldhName?: string }>;
}

function vcardName(entity: RdapEntity): string | null {
  const fields = entity.vcardArray?.[1] ?? [];
  const fn = fields.find((f) => Array.isArray(f) && f[0] === 'fn');
  return typeof fn?.[3] === 'string' && fn[3].trim() ? fn[3].trim() : null;
}

export function parseRdap(json: unknown): ParsedData {
  const d = (json ?? {}) as RdapDomain;
  const event = (action: string) => isoDate(d.events?.find((e) => e.eventAction === action)?.eventDate);
  const registrar = d.entities?.find((e) => e.roles?.includes('registrar'));
  return {
    domain_name: d.ldhName?.toLowerCase() ?? null,
    registrar: registrar ? (vcardName(registrar) ?? registrar.handle ?? null) : null,
    creation_date: event('registration'),
    expiration_date: event('expiration'),
    updated_date: event('last changed'),
    status: (d.status ?? []).filter((s) => typeof s === 'string'),
    name_servers: (d.nameservers ?? []).flatMap((n) => (n.ldhName ? [n.ldhName.toLowerCase().replace(/\.$/, '')] : [])),
    registrant: null,
  };
}

/** Registry evidence of a premium name: the answer about an unregistered name says "premium". */
export function mentionsPremium(text: string): boolean {
  return /\bpremium\b/i.test(text);
}

/** Fills what `primary` lacks from `secondary` (the registry answer first, the registrar's second). */
export function mergeParsed(primary: ParsedData, secondary: ParsedData): ParsedData {
  return {
    domain_name: primary.domain_name ?? secondary.domain_name,
    registrar: primary.registrar ?? secondary.registrar,
    creation_date: primary.creation_date ?? secondary.creation_date,
    expiration_date: primary.expiration_date ?? secondary.expiration_date,
    updated_date: primary.updated_date ?? secondary.updated_date,
    status: primary.status.length ? primary.status : secondary.status,
    name_servers: primary.name_servers.length ? primary.name_servers : secondary.name_servers,
    registrant: null,
  };
}
