// The capture batch insert as a PL/pgSQL function: PL/pgSQL keeps the plan of its queries per
// session, so the hot path no longer plans this statement on every batch (about a third of the
// database's time per batch when measured). Frozen in time, like every migration.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function insert_captures(batch json)
    returns table (webhook_ref bigint, webhook_id text, added bigint)
    language plpgsql as $fn$
    begin
      return query
      with v as (
        select * from json_to_recordset(batch) as v(
          ord int, webhook_id text, method text, path text, headers jsonb, body text, body_encoding text,
          body_size int, query_params text, ip_address text, user_agent text, created_at timestamptz)
      ), refs as (
        -- One unique-index probe per distinct webhook of the batch; a join would let the planner,
        -- blind to the batch size, scan every webhook.
        select ids.webhook_id, (select w.id from webhooks w where w.webhook_id = ids.webhook_id) as ref
        from (select distinct v.webhook_id from v) ids
      ), ins as (
        insert into captured_requests
          (webhook_ref, method, path, headers, body, body_encoding, body_size, query_params, ip_address, user_agent, created_at)
        select r.ref, v.method, v.path, v.headers, v.body, v.body_encoding, v.body_size, v.query_params, v.ip_address, v.user_agent, v.created_at
        from v join refs r on r.webhook_id = v.webhook_id
        where r.ref is not null
        order by v.ord
        returning captured_requests.webhook_ref
      )
      select r.ref, r.webhook_id, count(*) from ins join refs r on r.ref = ins.webhook_ref group by r.ref, r.webhook_id;
    end
    $fn$
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function insert_captures(json)`.execute(db);
}
