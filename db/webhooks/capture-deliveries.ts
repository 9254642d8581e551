// Deliveries of captures to their webhook's forward URL (activities/webhooks/index.ts). A capture of
// a forwarding webhook is stored `pending` (store_captures_v2); each attempt is appended to its
// history; a failed one sets when the next is due (`next_attempt_at`), the last one the outcome.
import { sql, type Kysely } from 'kysely';
import type { DeliveryGroup } from '../../lib/jobs/webhooks.ts';
import type { CaptureDelivery, Database, DeliveryAttempt } from '../schema.ts';
import { listCapturedRequests, type CapturedRequest } from './webhooks.ts';

/**
 * Pending and never tried (the floor's walk), or pending and its next attempt's time has come (the
 * retry index's).
 */
const FRESH = sql<boolean>`(c.delivery ->> 'status') = 'pending' and (c.delivery ->> 'next_attempt_at') is null`;
const RETRY_DUE = sql<boolean>`(c.delivery ->> 'status') = 'pending' and (c.delivery ->> 'next_attempt_at') is not null
  and (c.delivery ->> 'next_attempt_at')::timestamptz <= now()`;

/**
 * The deliveries due now, oldest first, at most `perWebhook` of each of at most `webhooks` forwarding
 * webhooks (fair: a webhook with a backlog of thousands takes its share, not the batch), skipping
 * the webhooks in `busy` (a batch of theirs is on its way). First each forwarding webhook's oldest
 * capture owed (one probe of its captures' index from its delivery floor, raiseDeliveryFloors, for
 * those never tried, and one of the retry index for those whose retry is due), then the rest of the
 * chosen webhooks' only: walking `perWebhook` captures of every forwarding webhook to keep
 * `webhooks` of them took 57 ms with 200 of them, holding up the captures queued behind it.
 */
export async function findDueDeliveries(
  db: Kysely<Database>,
  busy: readonly string[],
  perWebhook: number,
  webhooks: number,
): Promise<DeliveryGroup[]> {
  const owed = (limit: number) => sql`
    (select c.id from captured_requests c where c.webhook_ref = w.id and c.id > w.delivery_floor and ${FRESH}
      order by c.id limit ${limit})
    union all
    (select c.id from captured_requests c where c.webhook_ref = w.id and ${RETRY_DUE} order by c.id limit ${limit})`;
  const rows = await sql<{ webhook_id: string; ids: Array<string | number> }>`
    with chosen as (
      select w.id, w.webhook_id, w.delivery_floor, f.first from webhooks w
      cross join lateral (select min(y.id) as first from (${owed(1)}) y) f
      where w.forward_url is not null and f.first is not null and not (w.webhook_id = any(${busy as string[]}::text[]))
      order by f.first
      limit ${webhooks}
    )
    select w.webhook_id, d.ids from chosen w
    cross join lateral (
      select array_agg(x.id order by x.id) as ids
      from (select y.id from (${owed(perWebhook)}) y order by y.id limit ${perWebhook}) x
    ) d
    where d.ids is not null
    order by w.first
  `.execute(db);
  return rows.rows.map((r) => ({ webhookId: r.webhook_id, ids: r.ids.map(Number) }));
}

/**
 * When the earliest retry not due yet comes due (epoch ms), null when none waits (those due now are
 * the looks' to take). One probe of the retry index (next_attempt_at is an ISO time in UTC, which
 * sorts as text); a webhook that stopped forwarding has no pending deliveries left.
 */
export async function nextRetryAt(db: Kysely<Database>): Promise<number | null> {
  const row = await sql<{ at: string | null }>`
    select min(c.delivery ->> 'next_attempt_at') as at from captured_requests c
    where (c.delivery ->> 'status') = 'pending' and (c.delivery ->> 'next_attempt_at') is not null
      and (c.delivery ->> 'next_attempt_at') > ${new Date().toISOString()}
  `.execute(db);
  const at = row.rows[0]?.at;
  return at ? Date.parse(at) : null;
}

/**
 * Those of `ids` still pending and where they go; null when the webhook is gone (or forwards no
 * more: its pending deliveries were failed then). Deleted captures are simply not among them.
 */
export async function capturesToDeliver(
  db: Kysely<Database>,
  webhookId: string,
  ids: readonly number[],
): Promise<{ ref: number; forwardUrl: string; captures: CapturedRequest[] } | null> {
  const webhook = await db
    .selectFrom('webhooks')
    .select(['id', 'forward_url'])
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  if (!webhook?.forward_url) return null;
  const captures = await listCapturedRequests(db, Number(webhook.id), ids.length, 0, { ids, pendingDelivery: true });
  // Oldest first, as they came.
  return { ref: Number(webhook.id), forwardUrl: webhook.forward_url, captures: captures.reverse() };
}

/** How many captures were ever stored, by any process (the id sequence's last value; 0 before the first). */
export async function capturesEverStored(db: Kysely<Database>): Promise<number> {
  const row = await sql<{
    n: string | null;
  }>`select pg_sequence_last_value(pg_get_serial_sequence('captured_requests', 'id')::regclass) as n`.execute(db);
  return Number(row.rows[0]?.n ?? 0);
}

/**
 * One attempt's outcome for one capture (of the webhook `ref`): its status after it, when the next is
 * due, and the attempt (appended to its history).
 */
export interface AttemptRecord {
  ref: number;
  id: number;
  status: CaptureDelivery['status'];
  nextAttemptAt: string | null;
  attempt: DeliveryAttempt;
}

/**
 * Records attempts, of any webhooks, in one statement (each capture's latest figures and its
 * history): one UPDATE a capture cost a delivery ~0.3 ms of PGlite's one session, most of what it
 * did after a burst (measured: 1,700-1,900 records a second took 500-600 ms of each second).
 */
export async function recordDeliveryAttempts(db: Kysely<Database>, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const rows = records.map((r) => ({
    ref: r.ref,
    id: r.id,
    status: r.status,
    next_attempt_at: r.nextAttemptAt,
    attempt: r.attempt,
  }));
  await sql`
    update captured_requests c set delivery = jsonb_build_object(
      'status', r.status,
      'attempts', (r.attempt ->> 'attempt')::int,
      'response_status', (r.attempt -> 'response_status'),
      'duration_ms', (r.attempt -> 'duration_ms'),
      'next_attempt_at', r.next_attempt_at,
      'history', coalesce(c.delivery -> 'history', '[]'::jsonb) || jsonb_build_array(r.attempt))
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as r(ref bigint, id bigint, status text, next_attempt_at text, attempt jsonb)
    where c.webhook_ref = r.ref and c.id = r.id
      and (c.delivery ->> 'status') = 'pending' -- an overdue attempt never undoes a later outcome
  `.execute(db);
}

/**
 * Raises each webhook's delivery floor to just below its oldest capture never tried (to its newest
 * capture when there is none), after a batch of their deliveries and when forwarding is set; one
 * transaction for all of them (one a webhook held PGlite's one session over 25 round trips per
 * batch). Each webhook's row is locked first (FOR UPDATE SKIP LOCKED): a row locked by a capture
 * batch still in flight (its key-share lock, store_captures_v2) is skipped, and the next ones wait
 * for this transaction; so a capture of a batch in flight, whose id is below ones already committed,
 * is never left under a floor, and this never waits (a floor only saves reading: a webhook skipped
 * has its floor raised after a later batch). This relies on store_captures_v2 being what stores
 * captures `pending`, and on a capture's id being drawn after that lock. Never lowers a floor.
 */
export async function raiseDeliveryFloors(db: Kysely<Database>, refs: readonly number[]): Promise<void> {
  if (refs.length === 0) return;
  await db.transaction().execute(async (trx) => {
    const locked = await sql<{
      id: string | number;
    }>`select id from webhooks where id = any(${refs as number[]}::bigint[]) for update skip locked`.execute(trx);
    if (locked.rows.length === 0) return;
    await sql`
      update webhooks w set delivery_floor = greatest(w.delivery_floor, coalesce(
        (select min(c.id) - 1 from captured_requests c
          where c.webhook_ref = w.id and c.id > w.delivery_floor and ${FRESH}),
        (select max(c.id) from captured_requests c where c.webhook_ref = w.id),
        0))
      where w.id = any(${locked.rows.map((r) => Number(r.id))}::bigint[])
    `.execute(trx);
  });
}

/** Ends every pending delivery of a webhook as failed, saying why (forwarding turned off). */
export async function failPendingDeliveries(db: Kysely<Database>, webhookRef: number, reason: string): Promise<void> {
  const attempt = { at: new Date().toISOString(), response_status: null, duration_ms: 0, error: reason };
  await sql`
    update captured_requests c set delivery = c.delivery || jsonb_build_object(
      'status', 'failed', 'next_attempt_at', null,
      'history', coalesce(c.delivery -> 'history', '[]'::jsonb) || jsonb_build_array(
        ${JSON.stringify(attempt)}::jsonb
        || jsonb_build_object('attempt', coalesce((c.delivery ->> 'attempts')::int, 0))))
    where c.webhook_ref = ${webhookRef} and (c.delivery ->> 'status') = 'pending'
  `.execute(db);
}

/**
 * Whether any delivery has been due for more than `seconds` (the forwarder should be at it): one probe
 * per forwarding webhook.
 */
export async function hasStalledDeliveries(db: Kysely<Database>, seconds: number): Promise<boolean> {
  const row = await sql<{ stalled: boolean }>`
    select exists (
      select 1 from webhooks w
      cross join lateral (
        (select 1 from captured_requests c where c.webhook_ref = w.id and c.id > w.delivery_floor and ${FRESH}
          and c.created_at < now() - make_interval(secs => ${seconds}) order by c.id limit 1)
        union all
        (select 1 from captured_requests c where c.webhook_ref = w.id and ${RETRY_DUE}
          and (c.delivery ->> 'next_attempt_at')::timestamptz < now() - make_interval(secs => ${seconds}) limit 1)
      ) late
      where w.forward_url is not null
    ) as stalled
  `.execute(db);
  return row.rows[0]?.stalled ?? false;
}
