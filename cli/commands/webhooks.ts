// netops webhook list|show|requests|delete|export, and the families of their own files: create and
// update (webhook-settings.ts), wait (webhook-wait.ts), diff (webhook-diff.ts), replay (webhook-replay.ts),
// trigger (webhook-trigger.ts). What each does when it runs is in actions/, loaded then.
import { Option, type Command } from 'commander';
import { filterOptions, type FilterFlags } from './capture-filters.ts';
import { examples, positiveInt } from './parse.ts';
import { registerWebhookDiff } from './webhook-diff.ts';
import { registerWebhookReplay } from './webhook-replay.ts';
import { registerWebhookSettings } from './webhook-settings.ts';
import { registerWebhookTrigger } from './webhook-trigger.ts';
import { registerWebhookWait } from './webhook-wait.ts';

const actions = () => import('../actions/webhooks.ts');

export function registerWebhooks(program: Command): void {
  const webhook = program
    .command('webhook')
    .description('Webhooks: capture URLs, what they answer, and what they captured')
    .addHelpText(
      'after',
      examples(
        'netops webhook create',
        'netops webhook update wh_123 --rules rules.json',
        'netops webhook wait wh_123 --method POST --timeout 2m',
        'netops webhook requests wh_123 --limit 5',
      ),
    );

  registerWebhookSettings(webhook);

  webhook
    .command('list')
    .description('Your webhooks with their capture counts')
    .addHelpText(
      'after',
      examples('netops webhook list', "netops webhook list --json | jq -r '.data.webhooks[].webhook_url'"),
    )
    .option('--json', 'print the API answer')
    .action(async (o: { json?: boolean }) => (await actions()).list(o));

  webhook
    .command('show')
    .description('A webhook: its settings, its rules and its newest captures')
    .addHelpText('after', examples('netops webhook show wh_123'))
    .argument('<id>', 'the webhook id')
    .option('--json', 'print the my-webhooks answer narrowed to this webhook')
    .action(async (id: string, o: { json?: boolean }) => (await actions()).show(id, o));

  filterOptions(
    webhook
      .command('requests')
      .description('Captured requests of a webhook, newest first, with the rule that answered each and its verdicts')
      .argument('<id>', 'the webhook id'),
  )
    .option('--limit <n>', 'at most this many (1-500)', positiveInt('--limit'))
    .option('--cursor <cursor>', 'the next page (next_cursor of the previous one)')
    .addOption(
      new Option('--schema <verdict>', "only bodies valid (or invalid) against the webhook's JSON Schema").choices([
        'valid',
        'invalid',
      ]),
    )
    .option('--json', 'print the API answer')
    .addHelpText(
      'after',
      examples(
        'netops webhook requests wh_123 --method POST --q order_id --since 1h --limit 20',
        'netops webhook requests wh_123 --schema invalid',
      ),
    )
    .action(async (id: string, o: FilterFlags & { limit?: number; cursor?: string; schema?: string; json?: boolean }) =>
      (await actions()).requests(id, o),
    );

  webhook
    .command('delete')
    .description('Delete a webhook and what it captured')
    .addHelpText('after', examples('netops webhook delete wh_123'))
    .argument('<id>', 'the webhook id')
    .option('--json', 'print the API answer')
    .action(async (id: string, o: { json?: boolean }) => (await actions()).remove(id, o));

  filterOptions(
    webhook
      .command('export')
      .description('Every kept capture (or those matching the filters) as one JSON or HAR 1.2 file')
      .argument('<id>', 'the webhook id'),
  )
    .addOption(new Option('--format <format>', 'json or har').choices(['json', 'har']).default('json'))
    .option('-o, --output <file>', 'write it here (default: standard output)')
    .addHelpText('after', examples('netops webhook export wh_123 --format har -o captures.har'))
    .action(async (id: string, o: FilterFlags & { format: string; output?: string }) =>
      (await actions()).exportCaptures(id, o),
    );

  registerWebhookWait(webhook);
  registerWebhookDiff(webhook);
  registerWebhookReplay(webhook);
  registerWebhookTrigger(webhook);
}
