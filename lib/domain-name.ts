import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { InvalidInputError } from './errors.ts';

/**
 * A host name as typed by a user (Unicode or punycode, any case, optional trailing dot) in its ASCII
 * form, or a 400 naming `field` and the problem. Rules: RFC 1035 lengths (labels 1..63, name
 * ..253), letters, digits and hyphens, no hyphen at either end of a label, at least two labels.
 */
export function normalizeDomain(input: string, field = 'domain'): string {
  const trimmed = input.trim().replace(/\.$/, '');
  if (!trimmed) throw new InvalidInputError(`${field} is required`, field);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || trimmed.includes('/')) {
    throw new InvalidInputError(`${field} must be a domain name, not a URL (got ${JSON.stringify(input)})`, field);
  }
  // The URL standard reads numbers and dotted numbers (`8`, `0x7f.1`) as IPv4 addresses: a lookup
  // of a domain must not quietly become one of an address.
  if (isIP(trimmed.replace(/^\[|\]$/g, '')) || /^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+))*$/i.test(trimmed)) {
    throw new InvalidInputError(
      `${field} must be a domain name, not an IP address or a number (got ${JSON.stringify(input)})`,
      field,
    );
  }
  const ascii = domainToASCII(trimmed);
  if (!ascii || isIP(ascii.replace(/^\[|\]$/g, '')))
    throw new InvalidInputError(`${field} ${JSON.stringify(input)} is not a valid domain name`, field);
  if (ascii.length > 253) throw new InvalidInputError(`${field} is longer than 253 characters`, field);
  const labels = ascii.split('.');
  if (labels.length < 2)
    throw new InvalidInputError(`${field} ${JSON.stringify(input)} needs at least two labels, like example.com`, field);
  for (const label of labels) {
    if (label.length === 0 || label.length > 63)
      throw new InvalidInputError(`${field}: label ${JSON.stringify(label)} must be 1 to 63 characters`, field);
    if (!/^[a-z0-9_](?:[a-z0-9-_]*[a-z0-9_])?$/.test(label)) {
      throw new InvalidInputError(
        `${field}: label ${JSON.stringify(label)} may hold only letters, digits and inner hyphens`,
        field,
      );
    }
  }
  return ascii;
}
