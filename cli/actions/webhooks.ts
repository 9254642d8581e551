// netops webhook list|show|requests|delete|export when they run (their flags: commands/webhooks.ts).
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CAPTURE_HEAD, captureRows, settingsFields, type Capture, type Webhook } from '../webhooks/captures.ts';
import { pathOf } from '../client.ts';
import { webhookOperations as ops } from '../contract.ts';
import { asFlags } from '../flag-errors.ts';
import { localTime, note, out, print, printJson } from '../output.ts';
import { table } from '../table.ts';
import { api, findWebhook, webhookSchemas } from '../webhooks/webhook-api.ts';
import { FILTER_FLAGS, filterQuery, type FilterFlags } from '../commands/capture-filters.ts';

export async function list(o: { json?: boolean }): Promise<void> {
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
}

export async function show(id: string, o: { json?: boolean }): Promise<void> {
  const c = api();
  const answer = await findWebhook(c, id);
  if (o.json) return printJson(answer);
  print(settingsFields(answer.data.webhooks[0]));
  const recent = await c.call<{ data: { requests: Capture[] } }>(
    'GET',
    pathOf(ops.requests, {}, { webhook_id: id, limit: 10 }),
  );
  if (recent.data.requests.length) print(`\n${table(CAPTURE_HEAD, captureRows(recent.data.requests, id))}`);
}

export async function requests(
  id: string,
  o: FilterFlags & { limit?: number; cursor?: string; schema?: string; json?: boolean },
): Promise<void> {
  const query = { webhook_id: id, ...filterQuery(o), limit: o.limit, cursor: o.cursor, schema: o.schema };
  const flags = { ...FILTER_FLAGS, limit: '--limit', cursor: '--cursor', schema: '--schema' };
  const { checked, searchQuery } = await webhookSchemas();
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
}

export async function remove(id: string, o: { json?: boolean }): Promise<void> {
  const answer = await api().call<{ message: string }>('POST', pathOf(ops.remove), { json: { webhook_id: id } });
  if (o.json) return printJson(answer);
  print(answer.message);
}

export async function exportCaptures(id: string, o: FilterFlags & { format: string; output?: string }): Promise<void> {
  const query = { webhook_id: id, ...filterQuery(o), format: o.format };
  const flags = { ...FILTER_FLAGS, format: '--format' };
  const { checked, exportQuery } = await webhookSchemas();
  checked(exportQuery, query, 'query', flags);
  const res = await asFlags(flags, () => api().send('GET', pathOf(ops.export, {}, query), { open: true }));
  await pipeline(Readable.fromWeb(res.body as never), o.output ? fs.createWriteStream(o.output) : process.stdout, {
    end: Boolean(o.output),
  });
  if (o.output) note(`Saved ${fs.statSync(o.output).size} bytes to ${o.output}`);
}
