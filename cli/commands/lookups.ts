// netops whois|check|dns|ip|headers: the lookups, read in a terminal.
import fs from 'node:fs';
import type { Command } from 'commander';
import { examples } from './parse.ts';
import { domainOperations } from '../../api/schemas/domains.ts';
import { lookupOperations } from '../../api/schemas/lookups.ts';
import { client, pathOf, type AnswerOf } from '../client.ts';
import { currentService } from '../config.ts';
import { UsageError } from '../errors.ts';
import { asFlags } from '../flag-errors.ts';
import { fields, out, print, printJson, table } from '../output.ts';

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

export function registerLookups(program: Command): void {
  program
    .command('whois')
    .description('Registration of a domain: registrar, dates, status, name servers, availability and price')
    .argument('<domain>')
    .option('--mode <mode>', 'full (RDAP, WHOIS, DNS) or fast (DNS and RDAP only)')
    .option('--currency <code>', 'prices in this currency (USD, EUR, GBP, ...)')
    .option('--json', 'print the API answer')
    .addHelpText('after', examples('netops whois example.com --currency EUR'))
    .action(async (domain: string, o: { mode?: string; currency?: string; json?: boolean }) => {
      const a = await asFlags(LOOKUP_FLAGS, () =>
        api().call<AnswerOf<typeof domainOperations.whois>>(
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
    });

  program
    .command('check')
    .description('Availability of many domains at once (up to 100); - reads names from stdin, one per line')
    .argument('<domains...>')
    .option('--mode <mode>', 'fast (default) or full')
    .option('--currency <code>', 'prices in this currency')
    .option('--json', 'print the API answer')
    .addHelpText('after', examples('netops check acme.com acme.io acme.dev', 'cat names.txt | netops check -'))
    .action(async (given: string[], o: { mode?: string; currency?: string; json?: boolean }) => {
      const domains = given
        .flatMap((d) => (d === '-' ? fs.readFileSync(0, 'utf8').split(/\s+/) : [d]))
        .map((d) => d.trim())
        .filter(Boolean);
      if (!domains.length) throw new UsageError('no domains given');
      const a = await asFlags(LOOKUP_FLAGS, () =>
        api().call<AnswerOf<typeof domainOperations.bulk>>('POST', pathOf(domainOperations.bulk), {
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
    });

  program
    .command('dns')
    .description('DNS records of a domain')
    .addHelpText('after', examples('netops dns example.com', 'netops dns example.com --type MX'))
    .argument('<domain>')
    .option('--type <type>', 'one record type (A, AAAA, MX, TXT, NS, CNAME, SOA, ...; default all)')
    .option('--json', 'print the API answer')
    .action(async (domain: string, o: { type?: string; json?: boolean }) => {
      const a = await asFlags(LOOKUP_FLAGS, () =>
        api().call<AnswerOf<typeof lookupOperations.dns>>(
          'GET',
          pathOf(lookupOperations.dns, {}, { domain, type: o.type }),
        ),
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
    });

  program
    .command('ip')
    .description('Location, network and reverse DNS of an IP (yours when left out)')
    .addHelpText('after', examples('netops ip', 'netops ip 8.8.8.8'))
    .argument('[ip]')
    .option('--json', 'print the API answer')
    .action(async (ip: string | undefined, o: { json?: boolean }) => {
      const a = await api().call<AnswerOf<typeof lookupOperations.ip>>('GET', pathOf(lookupOperations.ip, {}, { ip }));
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
    });

  program
    .command('headers')
    .description("A site's security headers graded as Mozilla's HTTP Observatory grades them, and what to fix")
    .argument('<url>')
    .option('--json', 'print the API answer')
    .addHelpText('after', examples('netops headers https://example.com'))
    .action(async (url: string, o: { json?: boolean }) => {
      const a = await api().call<AnswerOf<typeof lookupOperations.headers>>(
        'GET',
        pathOf(lookupOperations.headers, {}, { url }),
      );
      if (o.json) return printJson(a);
      const sec = a.analysis.security;
      const gradeColor = sec.grade.startsWith('A')
        ? out.green
        : sec.grade.startsWith('F') || sec.grade.startsWith('D')
          ? out.red
          : out.yellow;
      print(
        `${out.bold(gradeColor(`Grade ${sec.grade}`))}  ${sec.score}/${sec.max_score}  ${a.effective_url} (HTTP ${a.http_code}, ${a.response_time} ms)`,
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
          `${out.red('✗')} ${out.bold(c.name)}${c.risk ? out.dim(` (${c.risk})`) : ''}\n    ${c.recommendation ?? c.description}`,
        );
    });
}
