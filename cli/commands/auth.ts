// login, logout, whoami: which service the command talks to, with which key. What each does when it
// runs is in actions/auth.ts, loaded then.
import type { Command } from 'commander';
import { examples } from './parse.ts';

const actions = () => import('../actions/auth.ts');

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
    .action(async (opts: { url: string; key: string; json?: boolean }) => (await actions()).login(opts));

  program
    .command('logout')
    .description('Forget the saved service and key (NETOPS_URL and NETOPS_API_KEY still apply)')
    .addHelpText('after', examples('netops logout'))
    .action(async () => (await actions()).logout());

  program
    .command('whoami')
    .description("The account of the key in use: its email, plan and the plan's limits")
    .addHelpText(
      'after',
      examples('netops whoami', 'NETOPS_URL=https://netops.example.com NETOPS_API_KEY=ntk_... netops whoami --json'),
    )
    .option('--json', 'print the API answer')
    .action(async (opts: { json?: boolean }) => (await actions()).whoami(opts));
}
