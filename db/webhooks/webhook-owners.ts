// Who owns the webhooks captures arrive for, on which plan, and what they answer: the capture path's
// read of the webhooks table (api/services/webhooks/captures.ts reads many at once).
import type { Kysely } from 'kysely';
import type { Plan } from '../../lib/plans.ts';
import type { Database, ResponseRule, WebhookResponse } from '../schema.ts';
import { readNullableJsonColumn, webhookResponseColumn, webhookRulesColumn } from '../json-columns.ts';

/** Who owns a webhook, on which plan, and what it answers (see webhookOwners). */
export interface WebhookOwnerRow {
  userId: number;
  plan: Plan;
  response: WebhookResponse | null;
  rules: ResponseRule[] | null;
}

/**
 * Who owns each of the webhooks, on which plan, and what they answer, in one statement: those found,
 * by public id (an unknown id is not in the map). A row whose columns do not hold their shape gives
 * its error, in its place: the others are read all the same.
 */
export async function webhookOwners(
  db: Kysely<Database>,
  webhookIds: readonly string[],
): Promise<Map<string, WebhookOwnerRow | Error>> {
  if (webhookIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhooks')
    .innerJoin('users', 'users.id', 'webhooks.user_id')
    .select([
      'webhooks.webhook_id as webhookId',
      'users.id as userId',
      'users.plan as plan',
      'webhooks.response as response',
      'webhooks.rules as rules',
    ])
    .where('webhooks.webhook_id', 'in', [...new Set(webhookIds)])
    .execute();
  const owners = new Map<string, WebhookOwnerRow | Error>();
  for (const row of rows) {
    try {
      owners.set(row.webhookId, {
        userId: Number(row.userId),
        plan: row.plan,
        response: readNullableJsonColumn('webhooks.response', webhookResponseColumn, row.response),
        rules: readNullableJsonColumn('webhooks.rules', webhookRulesColumn, row.rules),
      });
    } catch (err) {
      owners.set(row.webhookId, err as Error);
    }
  }
  return owners;
}
