// A webhook may answer by rules (an ordered list of {match, response}, null: none), and each
// capture records which rule answered it (matched_rule: its index, null: none did). The capture
// write learns the new field in place: store_captures_v2 keeps its name and its signature, and a
// batch that carries no matched_rule (an API process of the release before, during a rolling
// upgrade) stores null. Frozen in time: Kysely<any>.
import { sql, type Kysely } from 'kysely';

const storeCaptures = (withRule: boolean) => sql`
  create or replace function store_captures_v2(batch json)
  returns table (webhook_id text, webhook_ref bigint, forwarding boolean, keep int)
  language plpgsql as $fn$
  begin
    return query
    with v as (
      select * from json_to_recordset(batch) as v(
        ord int, webhook_id text, method text, path text, headers jsonb, body text, body_encoding text,
        body_size int, query_params text, ip_address text, user_agent text, created_at timestamptz${sql.raw(withRule ? ', matched_rule smallint' : '')})
    ), refs as (
      -- One unique-index probe and one row lock per distinct webhook of the batch.
      select ids.webhook_id, w.id as ref, w.forward_url is not null as forwarding, (w.retention ->> 'max_requests')::int as keep
      from (select distinct v.webhook_id from v) ids
      join lateral (select x.id, x.forward_url, x.retention from webhooks x where x.webhook_id = ids.webhook_id for key share) w on true
    ), ins as (
      insert into captured_requests
        (webhook_ref, method, path, headers, body, body_encoding, body_size, query_params, ip_address, user_agent, created_at, delivery${sql.raw(withRule ? ', matched_rule' : '')})
      select r.ref, v.method, v.path, v.headers, v.body, v.body_encoding, v.body_size, v.query_params, v.ip_address, v.user_agent, v.created_at,
        -- A capture that is itself a forward of ours (x-netops-delivery) is not forwarded again: no circles.
        case when r.forwarding and not (v.headers ? 'x-netops-delivery') then '{"status":"pending","attempts":0,"response_status":null,"duration_ms":null,"history":[]}'::jsonb end${sql.raw(withRule ? ', v.matched_rule' : '')}
      from v join refs r on r.webhook_id = v.webhook_id
      order by v.ord
    )
    select r.webhook_id, r.ref, r.forwarding, r.keep from refs r;
  end
  $fn$
`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('rules', 'jsonb').execute();
  await db.schema.alterTable('captured_requests').addColumn('matched_rule', 'smallint').execute();
  await storeCaptures(true).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await storeCaptures(false).execute(db);
  await db.schema.alterTable('captured_requests').dropColumn('matched_rule').execute();
  await db.schema.alterTable('webhooks').dropColumn('rules').execute();
}
