// netops whois|check|dns|ip|headers when they run (their flags: commands/lookups.ts).
import fs from 'node:fs';
import type * as domains from '../../contract/domains.ts';
import type * as lookups from '../../contract/lookups.ts';
import { client, pathOf, type AnswerOf } from '../client.ts';
import { currentService } from '../config.ts';
import { domainOperations, lookupOperations } from '../contract.ts';
import { UsageError } from '../errors.ts';
import { asFlags } from '../flag-errors.ts';
import { fields, out, print, printJson } from '../output.ts';
import { table } from '../table.ts';

type Domains = typeof domains.domainOperations;
type Lookups = typeof lookups.lookupOperations;

const api = () => client(currentService());
/** A refusal of a flag's value is told as the flag (exit 2); of the argument, as the argument. */
const LOOKUP_FLAGS = {
  mode: '--mode',
  currency: '--currency',
  type: '--type',
  domain: '<domain>',
  domains: '<domains>',
};
const yesNo = (v: boolean | null) => (v === null ? 'unknown' : v ? 'yes' : 'no');
const price = (
  p: { registration_price?: number | null; registration?: number; currency: string } | null | undefined,
) => {
  const n = p ? (p.registration_price ?? p.registration) : null;
  return n === null || n === undefined ? '' : `${n} ${p!.currency}`;
};

export async function whois(domain: string, o: { mode?: string; currency?: string; json?: boolean }): Promise<void> {
  const a = await asFlags(LOOKUP_FLAGS, () =>
    api().call<AnswerOf<Domains['whois']>>(
      'GET',
      pathOf(domainOperations.whois, {}, { domain, mode: o.mode, currency: o.currency }),
    ),
  );
  if (o.json) return printJson(a);
  const p = a.parsed_data;
  print(
    fields([
      ['Domain', out.bold(a.domain)],
      ['Registered', `${yesNo(a.is_registered)} (${a.availability_confidence} confidence)`],
      ['Available', yesNo(a.available)],
      ['Registrar', p.registrar],
      ['Created', p.creation_date],
      ['Expires', p.expiration_date],
      ['Updated', p.updated_date],
      ['Status', p.status.join(', ')],
      ['Name servers', p.name_servers.join(', ')],
      ['Premium', a.is_premium ? (a.premium_type ?? 'yes') : undefined],
      [
        'Price',
        a.pricing
          ? `${price(a.pricing)} to register, ${a.pricing.renewal_price ?? '?'} ${a.pricing.currency} to renew`
          : undefined,
      ],
    ]),
  );
}

export async function check(given: string[], o: { mode?: string; currency?: string; json?: boolean }): Promise<void> {
  const domains = given
    .flatMap((d) => (d === '-' ? fs.readFileSync(0, 'utf8').split(/\s+/) : [d]))
    .map((d) => d.trim())
    .filter(Boolean);
  if (!domains.length) throw new UsageError('no domains given');
  const a = await asFlags(LOOKUP_FLAGS, () =>
    api().call<AnswerOf<Domains['bulk']>>('POST', pathOf(domainOperations.bulk), {
      json: { domains, mode: o.mode, currency: o.currency },
    }),
  );
  if (o.json) return printJson(a);
  const rows = Object.entries(a.results).map(([name, r]) =>
    r.success
      ? [
          name,
          r.available === null ? out.yellow('unknown') : r.available ? out.green('available') : 'taken',
          r.availability_confidence,
          r.is_premium ? 'premium' : '',
          price(r.pricing),
        ]
      : [name, out.red('error'), '', '', r.error],
  );
  print(table(['Domain', 'Status', 'Confidence', '', 'Price'], rows));
}

export async function dns(domain: string, o: { type?: string; json?: boolean }): Promise<void> {
  const a = await asFlags(LOOKUP_FLAGS, () =>
    api().call<AnswerOf<Lookups['dns']>>('GET', pathOf(lookupOperations.dns, {}, { domain, type: o.type })),
  );
  if (o.json) return printJson(a);
  const rows = Object.entries(a.records as Record<string, unknown>).flatMap(([type, values]) =>
    values === null || values === undefined
      ? []
      : (Array.isArray(values) ? values : [values]).map((v) => [
          type,
          typeof v === 'string' ? v : type === 'MX' ? `${v.priority} ${v.host}` : JSON.stringify(v),
        ]),
  );
  print(rows.length ? table(['Type', 'Value'], rows) : `No records for ${domain}`);
}

export async function ip(ip: string | undefined, o: { json?: boolean }): Promise<void> {
  const a = await api().call<AnswerOf<Lookups['ip']>>('GET', pathOf(lookupOperations.ip, {}, { ip }));
  if (o.json) return printJson(a);
  const d = a.data;
  print(
    fields([
      ['IP', out.bold(a.ip)],
      ['Location', [d.city, d.region, d.country].filter(Boolean).join(', ') || 'unknown'],
      ['Network', [d.isp, d.organization].filter(Boolean).join(' / ')],
      ['Time zone', d.timezone],
      // Beyond the contract's fields, as the API answers it.
      ['Reverse DNS', (d as { reverse_dns?: string | null }).reverse_dns],
    ]),
  );
}

export async function headers(url: string, o: { json?: boolean }): Promise<void> {
  const a = await api().call<AnswerOf<Lookups['headers']>>('GET', pathOf(lookupOperations.headers, {}, { url }));
  if (o.json) return printJson(a);
  const sec = a.analysis.security;
  const gradeColor = sec.grade.startsWith('A')
    ? out.green
    : sec.grade.startsWith('F') || sec.grade.startsWith('D')
      ? out.red
      : out.yellow;
  print(
    `${out.bold(gradeColor(`Grade ${sec.grade}`))}  ${sec.score}/${sec.max_score}  ${a.effective_url} ` +
      `(HTTP ${a.http_code}, ${a.response_time} ms)`,
  );
  const failing = (
    sec.checks as Array<{
      name: string;
      passed: boolean;
      risk?: string;
      recommendation?: string;
      description: string;
    }>
  ).filter((c) => !c.passed);
  if (!failing.length) return print(out.green('Every check passed'));
  print('');
  for (const c of failing)
    print(
      `${out.red('✗')} ${out.bold(c.name)}${c.risk ? out.dim(` (${c.risk})`) : ''}\n    ` +
        `${c.recommendation ?? c.description}`,
    );
}
