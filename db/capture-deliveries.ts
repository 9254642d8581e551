// Deliveries of captures to their webhook's forward URL (activities/webhooks/index.ts). A capture of
// a forwarding webhook is stored `pending` (store_captures_v2); each attempt is appended to its
// history, and the last one sets the outcome.
import { sql, type Kysely } from 'kysely';
import type { CaptureDelivery, Database, DeliveryAttempt } from './schema.ts';
import { listCapturedRequests, type CapturedRequest } from './webhooks.ts';

/** The ids of the webhook's captures whose delivery is pending, oldest first (at most `limit`). */
export async function pendingDeliveries(db: Kysely<Database>, webhookId: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('captured_requests as c')
    .innerJoin('webhooks as w', 'w.id', 'c.webhook_ref')
    .select('c.id')
    .where('w.webhook_id', '=', webhookId)
    .where(sql<boolean>`(c.delivery ->> 'status') = 'pending'`) // the partial index's own predicate
    .orderBy('c.id', 'asc')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.id));
}

/**
 * Those of `ids` still pending and where they go (null forwardUrl: forwarding was turned off); null
 * when the webhook is gone. Deleted captures are simply not among them.
 */
export async function capturesToDeliver(db: Kysely<Database>, webhookId: string, ids: readonly number[]): Promise<{ ref: number; forwardUrl: string | null; captures: CapturedRequest[] } | null> {
  const webhook = await db.selectFrom('webhooks').select(['id', 'forward_url']).where('webhook_id', '=', webhookId).executeTakeFirst();
  if (!webhook) return null;
  const captures = await listCapturedRequests(db, Number(webhook.id), ids.length, 0, { ids, pendingDelivery: true });
  return { ref: Number(webhook.id), forwardUrl: webhook.forward_url, captures };
}

/** One attempt's outcome for one capture: its status after it, and the attempt (appended to its history). */
export interface AttemptRecord {
  id: number;
  status: CaptureDelivery['status'];
  attempt: DeliveryAttempt;
}

/** Records a batch of attempts in one statement (each capture's latest figures and its history). */
export async function recordDeliveryAttempts(db: Kysely<Database>, ref: number, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  await sql`
    update captured_requests c set delivery = jsonb_build_object(
      'status', r.status,
      'attempts', (r.attempt ->> 'attempt')::int,
      'response_status', (r.attempt -> 'response_status'),
      'duration_ms', (r.attempt -> 'duration_ms'),
      'history', coalesce(c.delivery -> 'history', '[]'::jsonb) || jsonb_build_array(r.attempt))
    from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as r(id bigint, status text, attempt jsonb)
    where c.webhook_ref = ${ref} and c.id = r.id
  `.execute(db);
}

/** The webhooks (at most `limit`) with a delivery pending since more than `seconds` ago. */
export async function stalledForwarders(db: Kysely<Database>, seconds: number, limit: number): Promise<string[]> {
  const rows = await sql<{ webhook_id: string }>`
    select w.webhook_id from webhooks w
    where exists (
      select 1 from captured_requests c
      where c.webhook_ref = w.id and (c.delivery ->> 'status') = 'pending' and c.created_at < now() - make_interval(secs => ${seconds})
    )
    limit ${limit}
  `.execute(db);
  return rows.rows.map((r) => r.webhook_id);
}
