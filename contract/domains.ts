// Domain registration lookups: one name, or up to BULK_MAX_DOMAINS at once.
import { z } from 'zod';
import { LOOKUP_MODES } from '../lib/lookup-modes.ts';
import { get, ok, operations, post } from './operation.ts';
import * as R from './responses-domains.ts';
import { described } from './validate.ts';

export const BULK_MAX_DOMAINS = 100;
/** The currencies a price is given in (domain/whois/pricing.ts converts to each). */
export const CURRENCIES = ['USD', 'EUR', 'GBP', 'CNY', 'INR', 'CAD', 'AUD', 'JPY', 'MXN', 'BRL'] as const;
export type Currency = (typeof CURRENCIES)[number];

const currency = z
  .string()
  .transform((c) => c.toUpperCase())
  .pipe(z.enum(CURRENCIES, { error: `must be one of ${CURRENCIES.join(', ')}` }))
  .default('USD');

const booleanParam = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');

export const whoisQuery = z.object({
  domain: z.string({ error: 'must be a string' }),
  include_pricing: booleanParam.default(true),
  currency,
  mode: z.enum(LOOKUP_MODES, { error: `must be one of ${LOOKUP_MODES.join(', ')}` }).default('full'),
});
export type WhoisQuery = z.output<typeof whoisQuery>;

const bulkMode = z.enum(['fast', 'full'], { error: 'must be fast or full' }).default('fast');
const domainList = z
  .array(z.string({ error: 'must be strings' }), { error: 'must be an array of domain names' })
  .min(1, 'must hold at least one domain')
  .max(BULK_MAX_DOMAINS, `must hold at most ${BULK_MAX_DOMAINS} domains: split larger sets into several requests`);

export const bulkBody = z.strictObject({
  domains: described(domainList, `1 to ${BULK_MAX_DOMAINS} domain names`),
  mode: described(bulkMode, 'fast (DNS, default) or full (registries)'),
  currency: described(currency, 'Currency of the prices (default USD)'),
});
export type BulkInput = z.output<typeof bulkBody>;
export const bulkQuery = z.object({
  domains: z
    .string({ error: 'must be a comma-separated list of domain names' })
    .transform((v) =>
      v
        .split(',')
        .map((d) => d.trim())
        .filter(Boolean),
    )
    .pipe(domainList),
  mode: bulkMode,
  currency,
});

export const domainOperations = operations('Domains', {
  whois: get('/network/whois', {
    summary: 'Registration of a domain (RDAP, WHOIS, DNS) with pricing',
    query: whoisQuery,
    success: ok(R.whoisAnswer, 'Registration and pricing'),
    errors: [400],
  }),
  bulk: post('/network/domains/check', {
    summary: 'Check up to 100 domains at once',
    body: bulkBody,
    success: ok(R.bulkCheckResult, 'One entry per name'),
    errors: [400],
  }),
  bulkByQuery: get('/network/domains/check', {
    summary: 'Check up to 100 domains at once (query form)',
    query: bulkQuery,
    success: ok(R.bulkCheckResult, 'One entry per name'),
    errors: [400],
  }),
});
