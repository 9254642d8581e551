// Registration and renewal prices per public suffix, in the ten currencies of the interface.
// Source data (data/SOURCES.md): Dynadot's list first (newer), Porkbun's for suffixes Dynadot lacks;
// both in USD, converted with the ECB reference rates (EUR base). No price is invented: a suffix
// neither list sells has null prices.
import fs from 'node:fs';
import { CURRENCIES, type Currency } from '../../contract/domains.ts';

/** `high_price` premium rule: a first-year registration price at or above this many USD. */
export const HIGH_PRICE_USD = 100;

/** Currencies without minor units in everyday prices (ISO 4217 exponent 0). */
const WHOLE_UNITS = new Set<Currency>(['JPY']);

export interface UsdPrice {
  registration: number;
  renewal: number;
  /** Which list the price came from. */
  source: 'dynadot' | 'porkbun';
}

export interface Price {
  registration: number;
  renewal: number;
  currency: Currency;
}

interface Tables {
  prices: Map<string, UsdPrice>;
  /** Units of each currency per USD. */
  perUsd: Record<Currency, number>;
}

let tables: Tables | undefined;

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(new URL(`./data/${file}`, import.meta.url), 'utf8')) as T;
}

function loadTables(): Tables {
  if (tables) return tables;
  const prices = new Map<string, UsdPrice>();
  const porkbun = readJson<{ pricing: Record<string, { registration: string; renewal: string }> }>(
    'tld-prices-porkbun.json',
  );
  for (const [suffix, p] of Object.entries(porkbun.pricing)) {
    const registration = Number(p.registration);
    const renewal = Number(p.renewal);
    if (Number.isFinite(registration) && Number.isFinite(renewal))
      prices.set(suffix, { registration, renewal, source: 'porkbun' });
  }
  const dynadot = readJson<{
    prices: Record<string, { register_price: number; renew_price: number; currency: string }>;
  }>('tld-prices-dynadot.json');
  for (const [suffix, p] of Object.entries(dynadot.prices)) {
    if (p.currency === 'USD' && p.register_price > 0 && p.renew_price > 0)
      prices.set(suffix, { registration: p.register_price, renewal: p.renew_price, source: 'dynadot' });
  }
  const ecb = readJson<{ base: string; rates: Record<string, number> }>('exchange-rates.json');
  const perUsd = Object.fromEntries(
    CURRENCIES.map((c) => [c, c === ecb.base ? 1 / ecb.rates.USD! : ecb.rates[c]! / ecb.rates.USD!]),
  ) as Record<Currency, number>;
  tables = { prices, perUsd };
  return tables;
}

/** The USD price of a suffix, or null when no list sells it. */
export function usdPrice(suffix: string): UsdPrice | null {
  return loadTables().prices.get(suffix) ?? null;
}

export function convert(usd: number, currency: Currency): number {
  const value = usd * loadTables().perUsd[currency];
  return WHOLE_UNITS.has(currency) ? Math.round(value) : Math.round(value * 100) / 100;
}

/** The price of a suffix in `currency`, or null when no list sells it. */
export function priceOf(suffix: string, currency: Currency): Price | null {
  const usd = usdPrice(suffix);
  return usd
    ? { registration: convert(usd.registration, currency), renewal: convert(usd.renewal, currency), currency }
    : null;
}
