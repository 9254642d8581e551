// A webhook may pass its captures on to a URL of its owner's (forward_url) and keep them by its own
// rules (retention {max_requests, max_age_days}; null: the plan's defaults). Each capture of a
// forwarding webhook carries its delivery's state (captured_requests.delivery, null when the webhook
// did not forward at capture time). store_captures_v2 marks those captures `pending` in the same
// statement that stores them, so a capture is never stored without its delivery being owed (the
// forwarder reads the pending ones: nothing rides only in memory), and answers which of the batch's
// webhooks forward and how many captures each keeps when it says (null: the default), so that the
// writer trims a webhook about as often as its count calls for. A failed attempt sets the
// delivery's `next_attempt_at` (in the jsonb). store_captures stays for API processes of the previous release during a rolling
// upgrade (their captures are then simply not forwarded). Frozen in time: Kysely<any>.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('forward_url', 'text').addColumn('retention', 'jsonb').execute();
  await db.schema.alterTable('captured_requests').addColumn('delivery', 'jsonb').execute();
  // The forwarder's look for what is owed: the forwarding webhooks, then each one's pending
  // deliveries (only those are in the index: no cost to other captures).
  await sql`create index webhooks_forwarding on webhooks (id) where forward_url is not null`.execute(db);
  await sql`create index captured_requests_pending_delivery on captured_requests (webhook_ref, id) where (delivery ->> 'status') = 'pending'`.execute(
    db,
  );
  // The earliest retry waiting, at the cost of one index probe (ISO times in UTC sort as text).
  await sql`create index captured_requests_retry_due on captured_requests ((delivery ->> 'next_attempt_at')) where (delivery ->> 'status') = 'pending' and (delivery ->> 'next_attempt_at') is not null`.execute(
    db,
  );
  await sql`
    create function store_captures_v2(batch json)
    returns table (webhook_id text, webhook_ref bigint, forwarding boolean, keep int)
    language plpgsql as $fn$
    begin
      return query
      with v as (
        select * from json_to_recordset(batch) as v(
          ord int, webhook_id text, method text, path text, headers jsonb, body text, body_encoding text,
          body_size int, query_params text, ip_address text, user_agent text, created_at timestamptz)
      ), refs as (
        -- One unique-index probe and one row lock per distinct webhook of the batch.
        select ids.webhook_id, w.id as ref, w.forward_url is not null as forwarding, (w.retention ->> 'max_requests')::int as keep
        from (select distinct v.webhook_id from v) ids
        join lateral (select x.id, x.forward_url, x.retention from webhooks x where x.webhook_id = ids.webhook_id for key share) w on true
      ), ins as (
        insert into captured_requests
          (webhook_ref, method, path, headers, body, body_encoding, body_size, query_params, ip_address, user_agent, created_at, delivery)
        select r.ref, v.method, v.path, v.headers, v.body, v.body_encoding, v.body_size, v.query_params, v.ip_address, v.user_agent, v.created_at,
          -- A capture that is itself a forward of ours (x-netops-delivery) is not forwarded again: no circles.
          case when r.forwarding and not (v.headers ? 'x-netops-delivery') then '{"status":"pending","attempts":0,"response_status":null,"duration_ms":null,"history":[]}'::jsonb end
        from v join refs r on r.webhook_id = v.webhook_id
        order by v.ord
      )
      select r.webhook_id, r.ref, r.forwarding, r.keep from refs r;
    end
    $fn$
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function store_captures_v2(json)`.execute(db);
  await sql`drop index captured_requests_retry_due`.execute(db);
  await sql`drop index captured_requests_pending_delivery`.execute(db);
  await sql`drop index webhooks_forwarding`.execute(db);
  await db.schema.alterTable('captured_requests').dropColumn('delivery').execute();
  await db.schema.alterTable('webhooks').dropColumn('forward_url').dropColumn('retention').execute();
}
