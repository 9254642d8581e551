// Refreshes the data the domain lookup ships (domain/whois/data/) from its public sources, where
// the service has internet access:
//   npm run --silent refresh-data [-- --only rdap,rates,porkbun,dynadot,whois] [--out <dir>]
// Each download is checked for the shape the code reads before it replaces the file; a failed source
// leaves its file as it was. Sources can be pointed elsewhere (mirrors, tests) with REFRESH_<NAME>_URL.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CURRENCIES } from '../contract/domains.ts';

const DATA_DIR = fileURLToPath(new URL('../domain/whois/data/', import.meta.url));

interface Source {
  file: string;
  url: string;
  init?: RequestInit;
  /** The file's new content from the download, or an error saying what is wrong with it. */
  build(body: string): string;
}

const SOURCES: Record<string, Source> = {
  rdap: {
    file: 'rdap-dns.json',
    url: process.env.REFRESH_RDAP_URL ?? 'https://data.iana.org/rdap/dns.json',
    build(body) {
      const json = JSON.parse(body) as { services?: unknown; publication?: unknown };
      if (!Array.isArray(json.services) || json.services.length < 100 || typeof json.publication !== 'string')
        throw new Error('not an RFC 9224 bootstrap file');
      return body;
    },
  },
  rates: {
    file: 'exchange-rates.json',
    url: process.env.REFRESH_RATES_URL ?? 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml',
    build(body) {
      const date = /<Cube\s+time=['"](\d{4}-\d{2}-\d{2})['"]/.exec(body)?.[1];
      const rates: Record<string, number> = { EUR: 1 };
      for (const m of body.matchAll(/<Cube\s+currency=['"]([A-Z]{3})['"]\s+rate=['"]([\d.]+)['"]/g))
        rates[m[1]!] = Number(m[2]);
      const missing = CURRENCIES.filter((c) => !(rates[c]! > 0));
      if (!date || missing.length)
        throw new Error(`not the ECB daily reference rates (missing ${missing.join(', ') || 'the date'})`);
      return `${JSON.stringify(
        {
          source: 'European Central Bank euro foreign exchange reference rates (eurofxref-daily.xml)',
          source_url: this.url,
          date,
          base: 'EUR',
          note:
            'Units of each currency per 1 EUR, as published by the ECB (about 16:00 CET). To convert to USD ' +
            "base: rate_usd[X] = rates[X] / rates['USD'].",
          rates,
        },
        null,
        2,
      )}\n`;
    },
  },
  porkbun: {
    file: 'tld-prices-porkbun.json',
    url: process.env.REFRESH_PORKBUN_URL ?? 'https://api.porkbun.com/api/json/v3/pricing/get',
    init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
    build(body) {
      const json = JSON.parse(body) as { status?: string; pricing?: Record<string, { registration?: string }> };
      if (json.status !== 'SUCCESS' || !json.pricing || Number.isNaN(Number(json.pricing.com?.registration)))
        throw new Error('not a Porkbun pricing answer');
      return body;
    },
  },
  dynadot: {
    file: 'tld-prices-dynadot.json',
    url:
      process.env.REFRESH_DYNADOT_URL ?? 'https://raw.githubusercontent.com/7c/domain-prices/master/data/dynadot.json',
    build(body) {
      const json = JSON.parse(body) as { prices?: Record<string, { register_price?: unknown; currency?: unknown }> };
      if (!json.prices || typeof json.prices.com?.register_price !== 'number' || json.prices.com.currency !== 'USD')
        throw new Error('not a Dynadot price list');
      return body;
    },
  },
  whois: {
    file: 'whois-servers.json',
    url: process.env.REFRESH_WHOIS_URL ?? 'https://raw.githubusercontent.com/WooMai/whois-servers/master/list.json',
    build(body) {
      const json = JSON.parse(body) as Record<string, unknown>;
      if (typeof json.com !== 'string' || Object.keys(json).length < 500)
        throw new Error('not a TLD -> WHOIS server map');
      return body;
    },
  },
};

function args(argv: string[]): { only: string[]; out: string } {
  let only = Object.keys(SOURCES);
  let out = DATA_DIR;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--only') only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (argv[i] === '--out') out = path.resolve(argv[++i] ?? '.');
    else throw new Error(`unknown argument ${argv[i]} (use --only <names> and --out <dir>)`);
  }
  const unknown = only.filter((name) => !(name in SOURCES));
  if (unknown.length)
    throw new Error(`unknown source ${unknown.join(', ')}: choose from ${Object.keys(SOURCES).join(', ')}`);
  return { only, out };
}

async function refresh(name: string, source: Source, out: string): Promise<boolean> {
  try {
    const res = await fetch(source.url, { ...source.init, signal: AbortSignal.timeout(60_000) });
    if (!res.ok) throw new Error(`${source.url} answered ${res.status}`);
    const content = source.build(await res.text());
    const target = path.join(out, source.file);
    const before = await fs.readFile(target, 'utf8').catch(() => null);
    await fs.writeFile(`${target}.tmp`, content);
    await fs.rename(`${target}.tmp`, target);
    console.log(`${name}: ${before === content ? 'unchanged' : 'updated'} ${source.file} from ${source.url}`);
    return true;
  } catch (err) {
    console.error(`${name}: kept ${source.file}: ${(err as Error).message}`);
    return false;
  }
}

const { only, out } = args(process.argv.slice(2));
await fs.mkdir(out, { recursive: true });
const results = await Promise.all(only.map((name) => refresh(name, SOURCES[name]!, out)));
if (results.includes(false)) {
  console.error('Some sources failed; update domain/whois/data/SOURCES.md for the ones that changed.');
  process.exit(1);
}
console.log('Done: record the new dates in domain/whois/data/SOURCES.md.');
