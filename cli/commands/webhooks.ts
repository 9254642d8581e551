// netops webhook create|list|show|requests|delete|export|replay: the webhook endpoints, in a terminal.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { webhookOperations as ops } from '../../api/schemas/webhooks.ts';
import { client, pathOf, type Client } from '../client.ts';
import { currentService } from '../config.ts';
import { ApiError } from '../errors.ts';
import { fields, localTime, ms, note, out, print, printJson, table } from '../output.ts';
import { examples, headerPairs, positiveInt } from './parse.ts';

interface Webhook {
  webhook_id: string;
  webhook_url: string;
  request_count: number;
  created_at: string;
  forward_url: string | null;
  response: { status: number } | null;
  signature: { scheme: string } | null;
  retention: { max_requests: number; max_age_days: number };
}
export interface Capture {
  id: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null;
  body_encoding: 'utf8' | 'base64';
  body_size: number;
  query_params: string | null;
  created_at: string;
  signature?: { status: string };
  delivery?: { status: string };
}

const api = () => client(currentService());

/** The path below the capture URL, with the query as it was sent. */
export function sentPath(c: Pick<Capture, 'path' | 'query_params'>, webhookId: string): string {
  const below = c.path.slice(`/webhook/${webhookId}`.length) || '/';
  if (!c.query_params) return below;
  const q = new URLSearchParams(
    Object.entries(JSON.parse(c.query_params) as Record<string, string | string[]>).flatMap(([k, v]) =>
      (Array.isArray(v) ? v : [v]).map((x) => [k, String(x)]),
    ),
  );
  return `${below}?${q}`;
}

export async function createWebhook(
  c: Client,
  body: Record<string, unknown> = {},
): Promise<Webhook & { success: true }> {
  return c.call('POST', pathOf(ops.create), { json: body });
}

/** The my-webhooks answer narrowed to one webhook (there is no endpoint of one). */
async function findWebhook(c: Client, id: string): Promise<{ success: true; data: { total: 1; webhooks: [Webhook] } }> {
  const list = await c.call<{ data: { webhooks: Webhook[] } }>('GET', pathOf(ops.list));
  const found = list.data.webhooks.find((w) => w.webhook_id === id);
  if (!found) throw new ApiError(`webhook show ${id}`, 404, 'not_found', `No webhook ${id} among yours`);
  return { success: true, data: { total: 1, webhooks: [found] } };
}

function captureRows(requests: Capture[], webhookId: string): Array<Array<string | number>> {
  return requests.map((r) => [
    r.id,
    localTime(r.created_at),
    r.method,
    sentPath(r, webhookId),
    `${r.body_size} B`,
    [r.signature && `signature ${r.signature.status}`, r.delivery && `delivery ${r.delivery.status}`]
      .filter(Boolean)
      .join(', '),
  ]);
}
const CAPTURE_HEAD = ['Id', 'Captured', 'Method', 'Path', 'Body', 'Notes'];

export function registerWebhooks(program: Command): void {
  const webhook = program
    .command('webhook')
    .description('Webhooks: capture URLs and what they captured')
    .addHelpText('after', examples('netops webhook create', 'netops webhook requests wh_123 --limit 5'));

  webhook
    .command('create')
    .description('Create a webhook and print its capture URL')
    .option(
      '--forward-url <url>',
      'pass each capture on to this URL (the service sends it: the URL must be reachable from it)',
    )
    .option('--status <code>', 'the status senders get (default 200)', positiveInt('--status'))
    .option('--body <text>', 'the body senders get')
    .option('--header <name:value>', 'a header senders get (repeat it)', (v: string, all: string[] = []) => [...all, v])
    .option('--keep <n>', 'how many captures it keeps (plan default 500)', positiveInt('--keep'))
    .option('--json', 'print the API answer')
    .addHelpText(
      'after',
      examples('netops webhook create --status 202 --header "Content-Type: text/plain" --body accepted'),
    )
    .action(
      async (o: {
        forwardUrl?: string;
        status?: number;
        body?: string;
        header?: string[];
        keep?: number;
        json?: boolean;
      }) => {
        const response =
          o.status !== undefined || o.body !== undefined || o.header
            ? { status: o.status ?? 200, body: o.body ?? '', headers: headerPairs(o.header ?? [], '--header') }
            : undefined;
        const created = await createWebhook(api(), {
          response,
          forward_url: o.forwardUrl,
          retention: o.keep ? { max_requests: o.keep } : undefined,
        });
        if (o.json) return printJson(created);
        print(
          fields([
            ['Webhook', created.webhook_id],
            ['Capture URL', out.bold(created.webhook_url)],
            ['Forwards to', created.forward_url],
          ]),
        );
      },
    );

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
    .description('A webhook: its settings and its newest captures')
    .addHelpText('after', examples('netops webhook show wh_123'))
    .argument('<id>', 'the webhook id')
    .option('--json', 'print the my-webhooks answer narrowed to this webhook')
    .action(async (id: string, o: { json?: boolean }) => {
      const c = api();
      const answer = await findWebhook(c, id);
      if (o.json) return printJson(answer);
      const w = answer.data.webhooks[0];
      print(
        fields([
          ['Webhook', w.webhook_id],
          ['Capture URL', out.bold(w.webhook_url)],
          ['Captures', w.request_count],
          ['Created', localTime(w.created_at)],
          ['Answers', w.response ? `status ${w.response.status} (custom)` : 'the default JSON acknowledgement'],
          ['Signatures', w.signature?.scheme ?? 'not checked'],
          ['Forwards to', w.forward_url ?? 'nowhere'],
          ['Keeps', `${w.retention.max_requests} captures, ${w.retention.max_age_days} days`],
        ]),
      );
      const recent = await c.call<{ data: { requests: Capture[] } }>(
        'GET',
        pathOf(ops.requests, {}, { webhook_id: id, limit: 10 }),
      );
      if (recent.data.requests.length) print(`\n${table(CAPTURE_HEAD, captureRows(recent.data.requests, id))}`);
    });

  webhook
    .command('requests')
    .description('Captured requests of a webhook, newest first, filtered as my-webhook-requests filters them')
    .argument('<id>', 'the webhook id')
    .option('--method <method>', 'only this method')
    .option('--header <name[:value]>', 'only with this header (and value)')
    .option('--q <text>', 'only bodies holding this text')
    .option('--since <time>', 'only captured at or after this ISO time')
    .option('--until <time>', 'only captured before this ISO time')
    .option('--limit <n>', 'at most this many (1-500)', positiveInt('--limit'))
    .option('--cursor <cursor>', 'the next page (next_cursor of the previous one)')
    .option('--json', 'print the API answer')
    .addHelpText('after', examples('netops webhook requests wh_123 --method POST --q order_id --limit 20'))
    .action(
      async (
        id: string,
        o: {
          method?: string;
          header?: string;
          q?: string;
          since?: string;
          until?: string;
          limit?: number;
          cursor?: string;
          json?: boolean;
        },
      ) => {
        const answer = await api().call<{ data: { total: number; requests: Capture[]; next_cursor?: string } }>(
          'GET',
          pathOf(
            ops.requests,
            {},
            {
              webhook_id: id,
              method: o.method,
              header: o.header,
              q: o.q,
              since: o.since,
              until: o.until,
              limit: o.limit,
              cursor: o.cursor,
            },
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

  webhook
    .command('export')
    .description('Every kept capture as one JSON or HAR 1.2 file')
    .argument('<id>', 'the webhook id')
    .option('--format <format>', 'json or har', 'json')
    .option('-o, --output <file>', 'write it here (default: standard output)')
    .addHelpText('after', examples('netops webhook export wh_123 --format har -o captures.har'))
    .action(async (id: string, o: { format: string; output?: string }) => {
      const res = await api().send('GET', pathOf(ops.export, {}, { webhook_id: id, format: o.format }), { open: true });
      await pipeline(Readable.fromWeb(res.body as never), o.output ? fs.createWriteStream(o.output) : process.stdout, {
        end: Boolean(o.output),
      });
      if (o.output) note(`Saved ${fs.statSync(o.output).size} bytes to ${o.output}`);
    });

  webhook
    .command('replay')
    .description('Send a captured request again, byte for byte, to a URL (from the service) and show the answer')
    .addHelpText('after', examples('netops webhook replay wh_123 42 --to https://staging.example.com/hooks'))
    .argument('<id>', 'the webhook id')
    .argument('<request-id>', 'the capture id (netops webhook requests)', positiveInt('request-id'))
    .requiredOption('--to <url>', 'where to send it')
    .option('--json', 'print the API answer')
    .action(async (id: string, requestId: number, o: { to: string; json?: boolean }) => {
      const answer = await api().call<{
        response: { status: number; body: string; truncated: boolean };
        duration_ms: number;
        target_url: string;
      }>('POST', pathOf(ops.replay), { json: { webhook_id: id, request_id: requestId, target_url: o.to } });
      if (o.json) return printJson(answer);
      print(`${answer.target_url} answered ${out.bold(String(answer.response.status))} in ${ms(answer.duration_ms)}`);
      if (answer.response.body)
        print(answer.response.body + (answer.response.truncated ? out.dim(' … (truncated)') : ''));
    });
}
