// The answers of the domain lookups (spec/interface.md): WHOIS of one name and the bulk availability
// check, and the WHOIS answer as served (with its meta).
import { z } from 'zod';
import { int, nullableStr, num, str } from './responses-fields.ts';

const isoOrNull = z.iso.datetime({ offset: true }).nullable();
const currencyCode = z.enum(['USD', 'EUR', 'GBP', 'CNY', 'INR', 'CAD', 'AUD', 'JPY', 'MXN', 'BRL']);
const confidence = z.enum(['high', 'medium', 'low']);

export const whoisResult = z.object({
  success: z.literal(true),
  domain: str,
  available: z.boolean().nullable(),
  is_registered: z.boolean().nullable(),
  is_premium: z.boolean(),
  is_reserved: z.boolean(),
  premium_type: z.enum(['registry_premium', 'aftermarket', 'reserved', 'high_price']).nullable(),
  availability_confidence: confidence,
  whois_server: str,
  raw_data: str,
  parsed_data: z.object({
    domain_name: nullableStr,
    registrar: nullableStr,
    creation_date: isoOrNull,
    expiration_date: isoOrNull,
    updated_date: isoOrNull,
    status: z.array(str),
    name_servers: z.array(str),
    registrant: z.null(),
  }),
  pricing: z
    .object({
      available: z.boolean(),
      is_premium: z.boolean(),
      registration_price: num.nullable(),
      renewal_price: num.nullable(),
      currency: currencyCode,
    })
    .nullable(),
  execution_time_ms: int,
});

export const whoisMeta = z.object({ cached: z.boolean(), cache_expires: int, query_time_ms: int });

export const bulkCheckResult = z.object({
  success: z.literal(true),
  query_time_ms: int,
  total: int,
  cached_count: int,
  checked_count: int,
  answered_by_rule_count: int.describe(
    'Names answered by a rule without a lookup (RFC 6761 names such as example.com)',
  ),
  invalid_count: int.describe('Names refused as not registrable; cached + checked + by rule + invalid = total'),
  mode: str,
  currency: currencyCode,
  results: z.record(
    str,
    z.union([
      z.object({
        success: z.literal(false),
        error: str.describe(
          'why the name has no answer: the reason it is invalid, "timeout" (no answer by the deadline; ' +
            'ask again later) or "the check failed: ..."',
        ),
        message: str.optional(),
      }),
      z.object({
        success: z.literal(true),
        available: z.boolean().nullable(),
        is_registered: z.boolean().nullable(), // null when the evidence does not say (docs/decisions.md)
        is_premium: z.boolean(),
        availability_confidence: confidence,
        cached: z.boolean(),
        pricing: z
          .object({ registration: num, renewal: num, currency: currencyCode, is_premium: z.boolean() })
          .optional(),
      }),
    ]),
  ),
});

// Beyond the contract: the WHOIS answer as served, for the OpenAPI document (extra fields allowed).
export const whoisAnswer = whoisResult.extend({ whois_server: str.nullable(), meta: whoisMeta.optional() });
