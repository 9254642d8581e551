// netops webhook diff: what changed between two captures of a webhook (my-webhook-diff), a delivery
// and its retry, yesterday's payload and today's.
import type { Command } from 'commander';
import { diffQuery, webhookOperations as ops } from '../../api/schemas/webhooks.ts';
import { pathOf } from '../client.ts';
import { diffView, type DiffAnswer } from '../diff-view.ts';
import { asFlags, checked } from '../flag-errors.ts';
import { print, printJson } from '../output.ts';
import { api } from '../webhook-api.ts';
import { examples, positiveInt } from './parse.ts';

export function registerWebhookDiff(webhook: Command): void {
  webhook
    .command('diff')
    .description('What changed from capture A to capture B of a webhook: method, path, query, headers, body')
    .argument('<id>', 'the webhook id')
    .argument('<a>', 'the first capture id (netops webhook requests)', positiveInt('<a>'))
    .argument('<b>', 'the capture compared with it', positiveInt('<b>'))
    .option(
      '--ignore-headers <names>',
      'headers left out, comma-separated (default: date, content-length, tracing ids...; "" compares every one)',
    )
    .option('--json', 'print the API answer')
    .addHelpText(
      'after',
      examples('netops webhook diff wh_123 41 42', 'netops webhook diff wh_123 41 42 --ignore-headers "" --json'),
    )
    .action(async (id: string, a: number, b: number, o: { ignoreHeaders?: string; json?: boolean }) => {
      const query = { webhook_id: id, a, b, ignore_headers: o.ignoreHeaders };
      const flags = { webhook_id: '<id>', a: '<a>', b: '<b>', ignore_headers: '--ignore-headers' };
      checked(diffQuery, query, 'query', flags);
      const answer = await asFlags(flags, () => api().call<DiffAnswer>('GET', pathOf(ops.diff, {}, query)));
      if (o.json) return printJson(answer);
      print(diffView(answer));
    });
}
