// netops webhook create|update when they run (their flags: commands/webhook-settings.ts).
import { settingsFields } from '../webhooks/captures.ts';
import { pathOf } from '../client.ts';
import { webhookOperations as ops } from '../contract.ts';
import { UsageError } from '../errors.ts';
import { asFlags } from '../flag-errors.ts';
import { out, print, printJson } from '../output.ts';
import { changesResponse, changesRetention, settingsOf, type SettingFlags } from '../webhooks/webhook-settings-body.ts';
import { api, createWebhook, findWebhook, webhookSchemas } from '../webhooks/webhook-api.ts';

const SETTING_FLAGS =
  '--rules, --schema, --signature, --response-*, --forward-url, --keep, --keep-days or a --clear-* flag';

export async function create(o: SettingFlags & { json?: boolean }): Promise<void> {
  const { settings, flags } = await settingsOf(o);
  const { checked, createBody } = await webhookSchemas();
  checked(createBody, settings, 'body', flags);
  const created = await asFlags(flags, () => createWebhook(api(), settings));
  if (o.json) return printJson(created);
  print(settingsFields({ ...created, request_count: 0 }));
}

export async function update(id: string, o: SettingFlags & { json?: boolean }): Promise<void> {
  const given = Object.entries(o).filter(([k, v]) => k !== 'json' && v !== undefined);
  if (!given.length) throw new UsageError(`webhook update: give at least one of ${SETTING_FLAGS}`);
  const c = api();
  const current = changesResponse(o) || changesRetention(o) ? (await findWebhook(c, id)).data.webhooks[0] : undefined;
  const { settings, flags } = await settingsOf(o, current);
  const body = { webhook_id: id, ...settings };
  const { checked, updateBody } = await webhookSchemas();
  checked(updateBody, body, 'body', flags);
  const answer = await asFlags(flags, () => c.call<{ message: string }>('POST', pathOf(ops.update), { json: body }));
  if (o.json) return printJson(answer);
  print(answer.message.replace(/^Updated: /, `${out.bold(id)} updated: `));
}
