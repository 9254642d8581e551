// Deliveries of captures to their webhook's forward URL (activities/webhooks/forward.ts). A capture of
// a forwarding webhook is stored `pending` (store_captures_v2); each attempt is appended to its
// history, and the last one sets the outcome.
import { sql, type Kysely } from 'kysely';
import type { CaptureDelivery, Database, DeliveryAttempt } from './schema.ts';
import { findCapture, type CapturedRequest } from './webhooks.ts';

/** The ids of the webhook's captures whose delivery is pending, oldest first (at most `limit`). */
export async function pendingDeliveries(db: Kysely<Database>, webhookId: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('captured_requests as c')
    .innerJoin('webhooks as w', 'w.id', 'c.webhook_ref')
    .select('c.id')
    .where('w.webhook_id', '=', webhookId)
    .where(sql<boolean>`c.delivery ->> 'status' = 'pending'`)
    .orderBy('c.id', 'asc')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.id));
}

/** A capture to deliver and where to (null forwardUrl: forwarding was turned off); null when the webhook or capture is gone. */
export async function captureToDeliver(db: Kysely<Database>, webhookId: string, captureId: number): Promise<{ ref: number; forwardUrl: string | null; capture: CapturedRequest } | null> {
  const webhook = await db.selectFrom('webhooks').select(['id', 'forward_url']).where('webhook_id', '=', webhookId).executeTakeFirst();
  if (!webhook) return null;
  const capture = await findCapture(db, Number(webhook.id), captureId);
  return capture ? { ref: Number(webhook.id), forwardUrl: webhook.forward_url, capture } : null;
}

/** Appends one attempt to a capture's delivery and sets its status (and the attempt's figures as the latest). */
export async function recordDeliveryAttempt(db: Kysely<Database>, ref: number, captureId: number, status: CaptureDelivery['status'], attempt: DeliveryAttempt): Promise<void> {
  await sql`
    update captured_requests set delivery = jsonb_build_object(
      'status', ${status}::text,
      'attempts', ${attempt.attempt}::int,
      'response_status', ${attempt.response_status}::int,
      'duration_ms', ${attempt.duration_ms}::float8,
      'history', coalesce(delivery -> 'history', '[]'::jsonb) || jsonb_build_array(${JSON.stringify(attempt)}::jsonb))
    where webhook_ref = ${ref} and id = ${captureId}
  `.execute(db);
}
