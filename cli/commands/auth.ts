// login, logout, whoami: which service the command talks to, with which key.
import fs from 'node:fs';
import type { Command } from 'commander';
import { examples } from './parse.ts';
import { accountOperations } from '../../api/schemas/account.ts';
import { client, pathOf } from '../client.ts';
import { currentService, forgetService, normalizeUrl, saveService } from '../config.ts';
import { UsageError } from '../errors.ts';
import { fields, out, print, printJson } from '../output.ts';

interface Account {
  email: string;
  plan: string;
  limits: Record<string, number>;
}

const accountOf = (service: { url: string; key: string }) =>
  client(service).call<Account & { success: true }>('GET', pathOf(accountOperations.show));

export function registerAuth(program: Command): void {
  program
    .command('login')
    .description('Check an API key against a service and save both in your config folder (mode 0600)')
    .requiredOption('--url <url>', 'the service, e.g. https://netops.example.com or http://127.0.0.1:3000')
    .requiredOption('--key <key>', 'an API key (ntk_...); - reads it from stdin')
    .option('--json', 'print the account as the API answers it')
    .addHelpText(
      'after',
      examples(
        'netops login --url http://127.0.0.1:3000 --key ntk_...',
        'echo "$NETOPS_KEY" | netops login --url https://netops.example.com --key -',
      ),
    )
    .action(async (opts: { url: string; key: string; json?: boolean }) => {
      const key = opts.key === '-' ? fs.readFileSync(0, 'utf8').trim() : opts.key.trim();
      if (!key) throw new UsageError('--key: is empty');
      const service = { url: normalizeUrl(opts.url), key };
      const account = await accountOf(service);
      const file = saveService(service);
      if (opts.json) return printJson(account);
      print(
        `Signed in to ${out.bold(service.url)} as ${out.bold(account.email)} (${account.plan} plan). Saved in ${file}`,
      );
    });

  program
    .command('logout')
    .description('Forget the saved service and key (NETOPS_URL and NETOPS_API_KEY still apply)')
    .addHelpText('after', examples('netops logout'))
    .action(() => {
      print(forgetService() ? 'Signed out: the saved service and key are gone' : 'Nothing was saved');
    });

  program
    .command('whoami')
    .description("The account of the key in use: its email, plan and the plan's limits")
    .addHelpText(
      'after',
      examples('netops whoami', 'NETOPS_URL=https://netops.example.com NETOPS_API_KEY=ntk_... netops whoami --json'),
    )
    .option('--json', 'print the API answer')
    .action(async (opts: { json?: boolean }) => {
      const service = currentService();
      const account = await accountOf(service);
      if (opts.json) return printJson(account);
      const l = account.limits;
      print(
        fields([
          ['Service', `${service.url} (${service.from})`],
          ['Email', account.email],
          ['Plan', account.plan],
          ['Requests', `${l.requests_per_minute}/minute, ${l.requests_per_day}/day`],
          [
            'Webhooks',
            `${l.webhooks} (${l.forwarding_webhooks} forwarding), ${l.captures_kept} captures kept for ${l.capture_days} days`,
          ],
          [
            'Load tests',
            `${l.load_tests_at_once} at once, up to ${l.load_test_users} users for ${l.load_test_seconds} s`,
          ],
        ]),
      );
    });
}
