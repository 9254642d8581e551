// netops webhook diff when it runs (its flags: commands/webhook-diff.ts).
import { pathOf } from '../client.ts';
import { webhookOperations as ops } from '../contract.ts';
import { diffView, type DiffAnswer } from '../webhooks/diff-view.ts';
import { asFlags } from '../flag-errors.ts';
import { print, printJson } from '../output.ts';
import { api, webhookSchemas } from '../webhooks/webhook-api.ts';

export async function diff(
  id: string,
  a: number,
  b: number,
  o: { ignoreHeaders?: string; json?: boolean },
): Promise<void> {
  const query = { webhook_id: id, a, b, ignore_headers: o.ignoreHeaders };
  const flags = { webhook_id: '<id>', a: '<a>', b: '<b>', ignore_headers: '--ignore-headers' };
  const { checked, diffQuery } = await webhookSchemas();
  checked(diffQuery, query, 'query', flags);
  const answer = await asFlags(flags, () => api().call<DiffAnswer>('GET', pathOf(ops.diff, {}, query)));
  if (o.json) return printJson(answer);
  print(diffView(answer));
}
