// Capture writes, lighter per row (measured: the database's time per capture was about as large as
// the API's). Frozen in time, like every migration.
// - The foreign key from captured_requests to webhooks ran a check query and locked the webhook's row
//   once per inserted row. store_captures takes that lock once per webhook per batch (FOR KEY
//   SHARE, which conflicts with the DELETE of the webhook), and a trigger deletes a deleted webhook's
//   captured requests, as the key's cascade did, whoever deletes it: the DELETE waits for the batches
//   that found the webhook to commit, and the trigger's statement, which starts after, sees their rows.
// - One index instead of two: every read of captured requests names its webhook, so the primary key
//   (webhook_ref, id) serves the listing, the count and the trimming, and id alone needed no index.
// - store_captures returns the webhooks it found, not per-webhook counts of inserted rows (the caller
//   counts its own batch), so the insert no longer returns its rows to be joined and grouped. It is a
//   new function: insert_captures stays for API processes of the previous release still running
//   during a rolling upgrade (it works on the new table, only without the per-batch lock).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table captured_requests drop constraint captured_requests_webhook_ref_fkey`.execute(db);
  await sql`alter table captured_requests drop constraint captured_requests_pkey`.execute(db);
  await sql`drop index captured_requests_webhook_newest`.execute(db);
  await sql`alter table captured_requests add constraint captured_requests_pkey primary key (webhook_ref, id)`.execute(
    db,
  );
  await sql`
    create function delete_webhook_captures() returns trigger language plpgsql as $fn$
    begin
      delete from captured_requests where webhook_ref = old.id;
      return null;
    end
    $fn$
  `.execute(db);
  await sql`create trigger webhooks_delete_captures after delete on webhooks for each row execute function delete_webhook_captures()`.execute(
    db,
  );
  await sql`
    create function store_captures(batch json)
    returns table (webhook_id text, webhook_ref bigint)
    language plpgsql as $fn$
    begin
      return query
      with v as (
        select * from json_to_recordset(batch) as v(
          ord int, webhook_id text, method text, path text, headers jsonb, body text, body_encoding text,
          body_size int, query_params text, ip_address text, user_agent text, created_at timestamptz)
      ), refs as (
        -- One unique-index probe and one row lock per distinct webhook of the batch.
        select ids.webhook_id, (select w.id from webhooks w where w.webhook_id = ids.webhook_id for key share) as ref
        from (select distinct v.webhook_id from v) ids
      ), ins as (
        insert into captured_requests
          (webhook_ref, method, path, headers, body, body_encoding, body_size, query_params, ip_address, user_agent, created_at)
        select r.ref, v.method, v.path, v.headers, v.body, v.body_encoding, v.body_size, v.query_params, v.ip_address, v.user_agent, v.created_at
        from v join refs r on r.webhook_id = v.webhook_id
        where r.ref is not null
        order by v.ord
      )
      select r.webhook_id, r.ref from refs r where r.ref is not null;
    end
    $fn$
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function store_captures(json)`.execute(db);
  await sql`drop trigger webhooks_delete_captures on webhooks`.execute(db);
  await sql`drop function delete_webhook_captures()`.execute(db);
  await sql`alter table captured_requests drop constraint captured_requests_pkey`.execute(db);
  await sql`alter table captured_requests add constraint captured_requests_pkey primary key (id)`.execute(db);
  await sql`create index captured_requests_webhook_newest on captured_requests (webhook_ref, id desc)`.execute(db);
  // Rows whose webhook is gone (deleted outside the API, with its user say) would stop the key from returning.
  await sql`delete from captured_requests c where not exists (select 1 from webhooks w where w.id = c.webhook_ref)`.execute(
    db,
  );
  await sql`
    alter table captured_requests add constraint captured_requests_webhook_ref_fkey
    foreign key (webhook_ref) references webhooks (id) on delete cascade
  `.execute(db);
}
