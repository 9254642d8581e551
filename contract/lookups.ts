// Lookups answered in the request: DNS, IP information, HTTP headers.
import { isIP } from 'node:net';
import { z } from 'zod';
import { operation } from './operation.ts';
import * as R from './responses.ts';

/** The record types a DNS lookup asks for (one query each: domain/dns/lookup.ts). */
export const DNS_TYPES = ['A', 'AAAA', 'MX', 'NS', 'TXT', 'CNAME', 'SOA'] as const;
export type DnsType = (typeof DNS_TYPES)[number];

export const dnsQuery = z.object({
  domain: z.string({ error: 'must be a string' }),
  type: z
    .string()
    .transform((t) => t.toUpperCase())
    .pipe(z.enum(['ALL', ...DNS_TYPES], { error: `must be one of ALL, ${DNS_TYPES.join(', ')}` }))
    .default('ALL'),
});
export type DnsQuery = z.output<typeof dnsQuery>;

export const ipQuery = z.object({
  ip: z
    .string({ error: 'must be a string' })
    .trim()
    .refine((v) => v === '' || isIP(v) !== 0, 'must be an IPv4 or IPv6 address')
    .optional(),
});

/** A full http(s) URL a user wants looked at: the input of the header check and the site tools. */
export const urlInput = z.object({
  url: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'is required')
    .refine((v) => /^https?:\/\//i.test(v), 'must be a full http:// or https:// URL'),
});

export const lookupOperations = {
  dns: operation({
    method: 'get',
    path: '/network/dns-lookup',
    summary: 'DNS records of a domain',
    tag: 'Lookups',
    query: dnsQuery,
    success: { status: 200, schema: R.dnsLookupResult, description: 'Records' },
    errors: [400, 404, 502, 504],
  }),
  ip: operation({
    method: 'get',
    path: '/network/ip-info',
    summary: 'Location, network and reverse DNS of an IP (yours when omitted)',
    tag: 'Lookups',
    query: ipQuery,
    success: { status: 200, schema: R.ipInfoResult, description: 'What is known of the address' },
    errors: [400],
  }),
  headers: operation({
    method: 'get',
    path: '/network/http-headers',
    summary: 'Security headers, TLS, caching and cookies of a URL, graded',
    tag: 'Lookups',
    query: urlInput,
    success: { status: 200, schema: R.httpHeadersResult, description: 'Analysis' },
    errors: [400, 502, 504],
  }),
};
