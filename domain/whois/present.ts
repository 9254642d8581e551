// The response shapes of the interface: the single lookup (GET whois) and one bulk entry.
import type { CheckSummary, LookupMode } from '../../lib/jobs/domain-check.ts';
import type { CachedCheck } from './lookup.ts';
import { emptyParsedData } from './parse.ts';
import type { Currency } from '../../contract/domains.ts';
import { HIGH_PRICE_USD, priceOf, usdPrice } from './pricing.ts';

export type PremiumType = 'reserved' | 'registry_premium' | 'aftermarket' | 'high_price';

/**
 * The premium rules, first match wins:
 * 1. `reserved`: reserved by rule or by the registry (reserved.ts, lookup.ts);
 * 2. `registry_premium`: the registry's answer about the unregistered name calls it premium;
 * 3. `aftermarket`: registered and parked at a marketplace's for-sale name servers (lookup.ts);
 * 4. `high_price`: the suffix's first-year registration costs HIGH_PRICE_USD (100 USD) or more.
 * `is_premium` is true exactly when one applies (the interface: premium_type is null when not premium).
 */
export function premiumType(check: CheckSummary): PremiumType | null {
  if (check.is_reserved) return 'reserved';
  if (check.registry_premium) return 'registry_premium';
  if (check.aftermarket) return 'aftermarket';
  const usd = usdPrice(check.suffix);
  return usd && usd.registration >= HIGH_PRICE_USD ? 'high_price' : null;
}

function notes(check: CheckSummary): string[] {
  return [...(check.reserved_reason ? [`reserved: ${check.reserved_reason}`] : []), ...check.problems];
}

export interface WhoisResponseOptions {
  mode: LookupMode;
  includePricing: boolean;
  currency: Currency;
  executionMs: number;
}

export function whoisResponse({ check, cached, cacheExpires }: CachedCheck, o: WhoisResponseOptions) {
  const type = premiumType(check);
  const price = priceOf(check.suffix, o.currency);
  // availability_only answers availability and price: no registration record, no raw answer.
  const detailed = o.mode !== 'availability_only';
  return {
    success: true,
    domain: check.domain,
    available: check.available,
    is_registered: check.is_registered,
    is_premium: type !== null,
    is_reserved: check.is_reserved,
    premium_type: type,
    availability_confidence: check.confidence,
    whois_server: check.whois_server,
    raw_data: detailed ? check.raw_data : '',
    parsed_data: detailed ? check.parsed_data : emptyParsedData(check.domain),
    pricing: o.includePricing
      ? {
          available: check.available === true,
          is_premium: type !== null,
          registration_price: price?.registration ?? null,
          renewal_price: price?.renewal ?? null,
          currency: o.currency,
        }
      : null,
    ...(o.mode === 'full' ? {} : { meta: { cached, cache_expires: cacheExpires, query_time_ms: o.executionMs } }),
    evidence: check.evidence,
    notes: notes(check),
    execution_time_ms: o.executionMs,
  };
}

/** One `results.<domain>` entry of a bulk check; pricing only for available names whose suffix has a price. */
export function bulkEntry({ check, cached }: Pick<CachedCheck<CheckSummary>, 'check' | 'cached'>, currency: Currency) {
  const type = premiumType(check);
  const price = check.available === true ? priceOf(check.suffix, currency) : null;
  return {
    success: true,
    available: check.available,
    is_registered: check.is_registered,
    is_premium: type !== null,
    availability_confidence: check.confidence,
    cached,
    ...(price
      ? { pricing: { registration: price.registration, renewal: price.renewal, currency, is_premium: type !== null } }
      : {}),
    premium_type: type,
    is_reserved: check.is_reserved,
    notes: notes(check),
  };
}
