// netops webhook list|show|requests|delete|export, and the families of their own files: create and
// update (webhook-settings.ts), wait (webhook-wait.ts), diff (webhook-diff.ts), replay (webhook-replay.ts),
// trigger (webhook-trigger.ts).
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Option, type Command } from 'commander';
import { exportQuery, webhookOperations as ops, searchQuery } from '../../api/schemas/webhooks.ts';
import { CAPTURE_HEAD, captureRows, settingsFields, type Capture, type Webhook } from '../captures.ts';
import { pathOf } from '../client.ts';
import { asFlags, checked } from '../flag-errors.ts';
import { localTime, note, out, print, printJson, table } from '../output.ts';
import { api, findWebhook } from '../webhook-api.ts';
import { FILTER_FLAGS, filterOptions, filterQuery, type FilterFlags } from './capture-filters.ts';
import { examples, positiveInt } from './parse.ts';
import { registerWebhookDiff } from './webhook-diff.ts';
import { registerWebhookReplay } from './webhook-replay.ts';
import { registerWebhookSettings } from './webhook-settings.ts';
import { registerWebhookTrigger } from './webhook-trigger.ts';
import { registerWebhookWait } from './webhook-wait.ts';

// What `netops listen` takes from here.
export { sentPath, type Capture } from '../captures.ts';
export { createWebhook } from '../webhook-api.ts';

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
    .action(async (o: { json?: boolean }) => {
      const answer = await api().call<{ data: { total: number; webhooks: Webhook[] } }>('GET', pathOf(ops.list));
      if (o.json) return printJson(answer);
      if (!answer.data.webhooks.length) return print('No webhooks yet: netops webhook create');
      print(
        table(
          ['Webhook', 'Capture URL', 'Captures', 'Created', 'Forwards to'],
          answer.data.webhooks.map((w) => [
            w.webhook_id,
            w.webhook_url,
            w.request_count,
            localTime(w.created_at),
            w.forward_url ?? '',
          ]),
        ),
      );
    });

  webhook
    .command('show')
    .description('A webhook: its settings, its rules and its newest captures')
    .addHelpText('after', examples('netops webhook show wh_123'))
    .argument('<id>', 'the webhook id')
    .option('--json', 'print the my-webhooks answer narrowed to this webhook')
    .action(async (id: string, o: { json?: boolean }) => {
      const c = api();
      const answer = await findWebhook(c, id);
      if (o.json) return printJson(answer);
      print(settingsFields(answer.data.webhooks[0]));
      const recent = await c.call<{ data: { requests: Capture[] } }>(
        'GET',
        pathOf(ops.requests, {}, { webhook_id: id, limit: 10 }),
      );
      if (recent.data.requests.length) print(`\n${table(CAPTURE_HEAD, captureRows(recent.data.requests, id))}`);
    });

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
    .action(
      async (id: string, o: FilterFlags & { limit?: number; cursor?: string; schema?: string; json?: boolean }) => {
        const query = { webhook_id: id, ...filterQuery(o), limit: o.limit, cursor: o.cursor, schema: o.schema };
        const flags = { ...FILTER_FLAGS, limit: '--limit', cursor: '--cursor', schema: '--schema' };
        checked(searchQuery, query, 'query', flags);
        const answer = await asFlags(flags, () =>
          api().call<{ data: { total: number; requests: Capture[]; next_cursor?: string } }>(
            'GET',
            pathOf(ops.requests, {}, query),
          ),
        );
        if (o.json) return printJson(answer);
        if (!answer.data.requests.length) return print('No captures match');
        print(table(CAPTURE_HEAD, captureRows(answer.data.requests, id)));
        if (answer.data.next_cursor) note(out.dim(`More: --cursor ${answer.data.next_cursor}`));
      },
    );

  webhook
    .command('delete')
    .description('Delete a webhook and what it captured')
    .addHelpText('after', examples('netops webhook delete wh_123'))
    .argument('<id>', 'the webhook id')
    .option('--json', 'print the API answer')
    .action(async (id: string, o: { json?: boolean }) => {
      const answer = await api().call<{ message: string }>('POST', pathOf(ops.remove), { json: { webhook_id: id } });
      if (o.json) return printJson(answer);
      print(answer.message);
    });

  filterOptions(
    webhook
      .command('export')
      .description('Every kept capture (or those matching the filters) as one JSON or HAR 1.2 file')
      .argument('<id>', 'the webhook id'),
  )
    .addOption(new Option('--format <format>', 'json or har').choices(['json', 'har']).default('json'))
    .option('-o, --output <file>', 'write it here (default: standard output)')
    .addHelpText('after', examples('netops webhook export wh_123 --format har -o captures.har'))
    .action(async (id: string, o: FilterFlags & { format: string; output?: string }) => {
      const query = { webhook_id: id, ...filterQuery(o), format: o.format };
      const flags = { ...FILTER_FLAGS, format: '--format' };
      checked(exportQuery, query, 'query', flags);
      const res = await asFlags(flags, () => api().send('GET', pathOf(ops.export, {}, query), { open: true }));
      await pipeline(Readable.fromWeb(res.body as never), o.output ? fs.createWriteStream(o.output) : process.stdout, {
        end: Boolean(o.output),
      });
      if (o.output) note(`Saved ${fs.statSync(o.output).size} bytes to ${o.output}`);
    });

  registerWebhookWait(webhook);
  registerWebhookDiff(webhook);
  registerWebhookReplay(webhook);
  registerWebhookTrigger(webhook);
}
