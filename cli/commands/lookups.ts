// netops whois|check|dns|ip|headers: the lookups, read in a terminal. What each does when it runs is in
// actions/lookups.ts, loaded then.
import type { Command } from 'commander';
import { examples } from './parse.ts';

const actions = () => import('../actions/lookups.ts');

export function registerLookups(program: Command): void {
  program
    .command('whois')
    .description('Registration of a domain: registrar, dates, status, name servers, availability and price')
    .argument('<domain>')
    .option('--mode <mode>', 'full (RDAP, WHOIS, DNS) or fast (DNS and RDAP only)')
    .option('--currency <code>', 'prices in this currency (USD, EUR, GBP, ...)')
    .option('--json', 'print the API answer')
    .addHelpText('after', examples('netops whois example.com --currency EUR'))
    .action(async (domain: string, o: { mode?: string; currency?: string; json?: boolean }) =>
      (await actions()).whois(domain, o),
    );

  program
    .command('check')
    .description('Availability of many domains at once (up to 100); - reads names from stdin, one per line')
    .argument('<domains...>')
    .option('--mode <mode>', 'fast (default) or full')
    .option('--currency <code>', 'prices in this currency')
    .option('--json', 'print the API answer')
    .addHelpText('after', examples('netops check acme.com acme.io acme.dev', 'cat names.txt | netops check -'))
    .action(async (given: string[], o: { mode?: string; currency?: string; json?: boolean }) =>
      (await actions()).check(given, o),
    );

  program
    .command('dns')
    .description('DNS records of a domain')
    .addHelpText('after', examples('netops dns example.com', 'netops dns example.com --type MX'))
    .argument('<domain>')
    .option('--type <type>', 'one record type (A, AAAA, MX, TXT, NS, CNAME, SOA, ...; default all)')
    .option('--json', 'print the API answer')
    .action(async (domain: string, o: { type?: string; json?: boolean }) => (await actions()).dns(domain, o));

  program
    .command('ip')
    .description('Location, network and reverse DNS of an IP (yours when left out)')
    .addHelpText('after', examples('netops ip', 'netops ip 8.8.8.8'))
    .argument('[ip]')
    .option('--json', 'print the API answer')
    .action(async (ip: string | undefined, o: { json?: boolean }) => (await actions()).ip(ip, o));

  program
    .command('headers')
    .description("A site's security headers graded as Mozilla's HTTP Observatory grades them, and what to fix")
    .argument('<url>')
    .option('--json', 'print the API answer')
    .addHelpText('after', examples('netops headers https://example.com'))
    .action(async (url: string, o: { json?: boolean }) => (await actions()).headers(url, o));
}
