// What a domain lookup is about: the registrable domain (the label under a public suffix), found with
// the Public Suffix List (tldts, ICANN section only: registries sell names under ICANN suffixes).
import { parse } from 'tldts';
import { normalizeDomain } from '../../lib/domain-name.ts';
import { InvalidInputError } from '../../lib/errors.ts';

/** Special-use top-level names (RFC 6761 §6.2-6.5, RFC 2606): never delegated, never registrable. */
export const SPECIAL_USE_TLDS = new Set(['test', 'localhost', 'invalid', 'example']);

export interface RegistrableDomain {
  /** The registrable domain in ASCII (punycode), e.g. `example.co.uk` for `www.example.co.uk`. */
  domain: string;
  /** The public suffix it sits under, e.g. `co.uk`: what a registry sells and what the price list is keyed by. */
  suffix: string;
  /** The top-level label, e.g. `uk`. */
  tld: string;
  /** The label bought from the registry, e.g. `example`. */
  label: string;
}

/**
 * The registrable domain of what a user typed (Unicode or punycode, any subdomain), or a 400 naming
 * `field`: invalid labels and lengths (normalizeDomain), a bare public suffix, or a name under no
 * ICANN public suffix. Names under special-use TLDs are accepted: they are answered as reserved.
 */
export function registrableDomain(input: string, field = 'domain'): RegistrableDomain {
  const ascii = normalizeDomain(input, field);
  const labels = ascii.split('.');
  const tld = labels.at(-1)!;
  if (SPECIAL_USE_TLDS.has(tld)) {
    return { domain: labels.slice(-2).join('.'), suffix: tld, tld, label: labels.at(-2)! };
  }
  const parsed = parse(ascii, { allowPrivateDomains: false });
  if (!parsed.isIcann || !parsed.publicSuffix) {
    throw new InvalidInputError(
      `${field} ${JSON.stringify(input)} is not under a known public suffix (top-level domain "${tld}" does not exist)`,
      field,
    );
  }
  if (!parsed.domain || !parsed.domainWithoutSuffix) {
    throw new InvalidInputError(
      `${field} ${JSON.stringify(input)} is a public suffix, not a registrable domain: add a name in front of it`,
      field,
    );
  }
  return { domain: parsed.domain, suffix: parsed.publicSuffix, tld, label: parsed.domainWithoutSuffix };
}
