// netops webhook diff: what changed between two captures of a webhook (my-webhook-diff), a delivery
// and its retry, yesterday's payload and today's. It runs from actions/webhook-diff.ts, loaded then.
import type { Command } from 'commander';
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
    .action(async (id: string, a: number, b: number, o: { ignoreHeaders?: string; json?: boolean }) =>
      (await import('../actions/webhook-diff.ts')).diff(id, a, b, o),
    );
}
