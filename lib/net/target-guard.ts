// The SSRF guard: whether a user-chosen URL may be reached (header analysis, load-test targets,
// page discovery, audits). Everything that connects to such a URL goes through it.
// - Only http and https, without credentials in the URL.
// - IP literals, which skip name resolution, are checked before connecting.
// - Names are resolved here and every answer is checked: one forbidden address refuses the target
//   (a name that answers both a public and a private address is a rebinding trick).
// - Sockets connect to the address that was checked: the check is their DNS lookup hook, so a name
//   that answers differently the next time is refused then.
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { InvalidInputError } from '../errors.ts';
import { createAddressPolicy, type AddressPolicy } from './address-policy.ts';
import { reachFailure } from './reach-failure.ts';
import { bareHost } from './bare-host.ts';

/** Resolves a name to all its addresses. */
export type Resolve = (hostname: string) => Promise<string[]>;

/** The URL points at an address the guard refuses (maps to 400: the caller chose it). */
export class ForbiddenAddressError extends InvalidInputError {
  override name = 'ForbiddenAddressError';
  constructor(message: string, field?: string) {
    super(message, field, 'target_not_allowed');
  }
}

/** A target the guard has let through, and how to reach it without going around the guard. */
export interface CheckedTarget {
  url: URL;
  /** checkTarget's: the addresses the name resolved to when checked (an address literal its own). */
  addresses?: string[];
  /** The socket lookup hook: resolves the name again and refuses any forbidden answer (same policy and field). */
  lookup: LookupFunction;
}

export interface TargetCheckOptions {
  /** CIDRs exempted from the guard (NETWORK_ALLOW). */
  allow?: readonly string[];
  /** What the URL is called in refusals (400 naming the field): 'url' by default. */
  field?: string;
  /** dns.lookup by default. */
  resolve?: Resolve;
}

/**
 * The URL, refused (400 naming `field`) when it is malformed, not http(s), has credentials, or is a forbidden IP
 * literal.
 */
export function checkUrl(raw: string, policy: AddressPolicy, field = 'url'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInputError(`${field}: ${JSON.stringify(raw)} is not a valid URL`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidInputError(`${field}: only http and https URLs are allowed (got ${url.protocol})`, field);
  if (url.username || url.password)
    throw new InvalidInputError(`${field}: credentials in the URL are not allowed`, field);
  const host = bareHost(url);
  if (isIP(host)) {
    const why = policy.refusal(host);
    if (why) throw new ForbiddenAddressError(`${field}: target not allowed: ${why}`, field);
  }
  return url;
}

/**
 * The URL as checkUrl lets it through, with the lookup its sockets must use: no name is resolved
 * here, each connection resolves and checks it (a refusal there is that connection's error).
 */
export function guardedTarget(raw: string, options: TargetCheckOptions = {}): CheckedTarget {
  const field = options.field ?? 'url';
  const policy = createAddressPolicy(options.allow);
  return { url: checkUrl(raw, policy, field), lookup: guardedLookup(policy, options.resolve ?? defaultResolve, field) };
}

/**
 * Refuses a user-chosen URL before any work starts (400 naming `field`): a bad URL, a forbidden
 * literal address, or a name that resolves to one. What it lets through carries the lookup that
 * sockets opened later must use, since a name can answer differently the next time.
 */
export async function checkTarget(raw: string, options: TargetCheckOptions = {}): Promise<CheckedTarget> {
  const field = options.field ?? 'url';
  const policy = createAddressPolicy(options.allow);
  const resolve = options.resolve ?? defaultResolve;
  const checked = guardedTarget(raw, options);
  const { url } = checked;
  const host = bareHost(url);
  if (isIP(host)) return { ...checked, addresses: [host] };
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    throw reachFailure(err, { url: url.href, host, field });
  }
  for (const address of addresses) {
    const why = policy.refusal(address);
    if (why)
      throw new ForbiddenAddressError(`${field}: target not allowed: ${host} resolves to ${address}: ${why}`, field);
  }
  return { ...checked, addresses };
}

/**
 * A resolver that answers only addresses of `pinned` (the addresses a load test's target proved it
 * controls): a name that now resolves elsewhere is refused, so a proof cannot be moved to another server.
 */
function pinnedResolve(pinned: readonly string[]): Resolve {
  const allowed = new Set(pinned);
  return async (host) => {
    const addresses = await defaultResolve(host);
    const other = addresses.find((a) => !allowed.has(a));
    if (other)
      throw new ForbiddenAddressError(
        `targetUrl: ${host} now resolves to ${other}, not an address its proof of control was served from`,
        'targetUrl',
      );
    return addresses;
  };
}

/**
 * The resolver a load test's connections use: the addresses its host had at its start (`connectTo`,
 * a small test run without proof: another answer of the name later reaches no other server), else
 * the proven ones (`addresses`), else the name's answers at each connection. The guard's lookup
 * checks what each answers.
 */
export function loadTestResolve(target: { addresses?: readonly string[]; connectTo?: readonly string[] }): {
  resolve?: Resolve;
} {
  if (target.connectTo) {
    const fixed = [...target.connectTo];
    return { resolve: async () => fixed };
  }
  return target.addresses ? { resolve: pinnedResolve(target.addresses) } : {};
}

/** The addresses of a URL's host (an address literal is its own). */
export async function addressesOf(host: string): Promise<string[]> {
  return isIP(host) ? [host] : defaultResolve(host);
}

const defaultResolve: Resolve = async (host) => {
  // RFC 6761 §6.4: a name under .invalid never resolves, so no resolver is asked.
  if (/(^|\.)invalid\.?$/i.test(host))
    throw Object.assign(new Error(`${host} is under .invalid (RFC 6761)`), { code: 'ENOTFOUND' });
  return (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
};

/** The lookup our sockets use: resolve, refuse if any answer is forbidden, connect to what was checked. */
export function guardedLookup(policy: AddressPolicy, resolve: Resolve = defaultResolve, field = 'url'): LookupFunction {
  return ((hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
        for (const address of addresses) {
          const why = policy.refusal(address);
          if (why)
            return callback(
              new ForbiddenAddressError(
                `${field}: target not allowed: ${hostname} resolves to ${address}: ${why}`,
                field,
              ),
            );
        }
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (opts?.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (err) => callback(err),
    );
  }) as LookupFunction;
}
