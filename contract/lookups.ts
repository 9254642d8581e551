// Lookups answered in the request: DNS, IP information, HTTP headers.
import { isIP } from 'node:net';
import { z } from 'zod';
import { get, ok, operations } from './operation.ts';
import * as R from './responses.ts';
import { described } from './validate.ts';

/** The record types a DNS lookup asks for (one query each: domain/dns/lookup.ts). */
export const DNS_TYPES = ['A', 'AAAA', 'MX', 'NS', 'TXT', 'CNAME', 'SOA'] as const;
export type DnsType = (typeof DNS_TYPES)[number];

/** A DNS lookup's fields: the REST query and the MCP tool's input are built from them. */
export const dnsFields = {
  domain: described(z.string({ error: 'must be a string' }), 'Domain name, e.g. example.com'),
  type: described(
    z
      .string()
      .transform((t) => t.toUpperCase())
      .pipe(z.enum(['ALL', ...DNS_TYPES], { error: `must be one of ALL, ${DNS_TYPES.join(', ')}` }))
      .default('ALL'),
    'Record type; ALL by default',
  ),
};
export const dnsQuery = z.object(dnsFields);
export type DnsQuery = z.output<typeof dnsQuery>;

const ipField = described(
  z
    .string({ error: 'must be a string' })
    .trim()
    .refine((v) => v === '' || isIP(v) !== 0, 'must be an IPv4 or IPv6 address'),
  'An IPv4 or IPv6 address',
);
/** REST's: without an address, the caller's own. */
export const ipQuery = z.object({ ip: ipField.optional() });
/** The MCP tool's: an assistant has no address of its own to ask about. */
export const ipArgs = { ip: ipField };

/** A full http(s) URL a user wants looked at: the input of the header check and the site tools. */
export const urlFields = {
  url: described(
    z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, 'is required')
      .refine((v) => /^https?:\/\//i.test(v), 'must be a full http:// or https:// URL'),
    'A full http:// or https:// URL',
  ),
};
export const urlInput = z.object(urlFields);

export const lookupOperations = operations('Lookups', {
  dns: get('/network/dns-lookup', {
    summary: 'DNS records of a domain',
    query: dnsQuery,
    success: ok(R.dnsLookupResult, 'Records'),
    errors: [400, 404, 502, 504],
  }),
  ip: get('/network/ip-info', {
    summary: 'Location, network and reverse DNS of an IP (yours when omitted)',
    query: ipQuery,
    success: ok(R.ipInfoResult, 'What is known of the address'),
    errors: [400],
  }),
  headers: get('/network/http-headers', {
    summary: 'Security headers, TLS, caching and cookies of a URL, graded',
    query: urlInput,
    success: ok(R.httpHeadersResult, 'Analysis'),
    errors: [400, 502, 504],
  }),
});
