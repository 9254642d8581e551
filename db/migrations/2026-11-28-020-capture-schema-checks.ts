// Each capture keeps its body's verdict against its webhook's JSON Schema (captured_requests.
// schema_check: {hash, valid, errors, error?}, null until checked), keyed by a hash of the schema it
// was checked against: computed once, after the capture is stored, and again only when the schema
// changed. store_captures_v2 learns to answer, for each webhook of a batch that has a schema, its
// owner and the ids of the captures the batch stored for it (the checks to make). Its name stays:
// an API process of the release before selects the columns it knows by name (its captures are then
// checked when read). Frozen in time: Kysely<any>.
import { sql, type Kysely } from 'kysely';

const CHECK_COLUMNS = ', owner_id bigint, checked bigint[]';

const storeCaptures = (withChecks: boolean) => sql`
  create function store_captures_v2(batch json)
  returns table (
    webhook_id text, webhook_ref bigint, forwarding boolean, keep int${sql.raw(withChecks ? CHECK_COLUMNS : '')}
  )
  language plpgsql as $fn$
  begin
    return query
    with v as (
      select * from json_to_recordset(batch) as v(
        ord int, webhook_id text, method text, path text, headers jsonb, body text, body_encoding text,
        body_size int, query_params text, ip_address text, user_agent text, created_at timestamptz,
        matched_rule smallint)
    ), refs as (
      -- One unique-index probe and one row lock per distinct webhook of the batch.
      select ids.webhook_id, w.id as ref, w.forward_url is not null as forwarding,
        (w.retention ->> 'max_requests')::int as keep, w.user_id as owner_ref, w.has_schema
      from (select distinct v.webhook_id from v) ids
      join lateral (
        select x.id, x.forward_url, x.retention, x.user_id, x.json_schema is not null as has_schema
        from webhooks x where x.webhook_id = ids.webhook_id for key share
      ) w on true
    ), ins as (
      insert into captured_requests
        (webhook_ref, method, path, headers, body, body_encoding, body_size, query_params, ip_address, user_agent,
         created_at, delivery, matched_rule)
      select r.ref, v.method, v.path, v.headers, v.body, v.body_encoding, v.body_size, v.query_params, v.ip_address,
        v.user_agent, v.created_at,
        -- A capture that is itself a forward of ours (x-netops-delivery) is not forwarded again: no circles.
        case when r.forwarding and not (v.headers ? 'x-netops-delivery')
          then '{"status":"pending","attempts":0,"response_status":null,"duration_ms":null,"history":[]}'::jsonb end,
        v.matched_rule
      from v join refs r on r.webhook_id = v.webhook_id
      order by v.ord
      returning captured_requests.id as new_id, captured_requests.webhook_ref as new_ref
    )
    select r.webhook_id, r.ref, r.forwarding, r.keep${sql.raw(
      withChecks
        ? `, r.owner_ref,
      case when r.has_schema then (select array_agg(i.new_id order by i.new_id) from ins i where i.new_ref = r.ref) end`
        : '',
    )}
    from refs r;
  end
  $fn$
`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('captured_requests').addColumn('schema_check', 'jsonb').execute();
  // Its answer's columns change: dropped and made again (in the migration's transaction).
  await sql`drop function store_captures_v2(json)`.execute(db);
  await storeCaptures(true).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function store_captures_v2(json)`.execute(db);
  await storeCaptures(false).execute(db);
  await db.schema.alterTable('captured_requests').dropColumn('schema_check').execute();
}
