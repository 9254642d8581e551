// Each capture keeps its query as it was sent (captured_requests.query_string: the text after `?`,
// byte for byte; null without a `?`), so that forwarding, listen, replay and the exports send and
// show it unchanged: query_params, the parsed pairs, cannot give back percent-encodings, `+` against
// `%20` or the order of repeated names. And the status it was answered with (answered_status: the
// rule's, the owner's response's, else 200). Rows stored before keep null in both: readers rebuild the
// query from query_params. store_captures_v2 learns the two fields in place: its name and its answer's
// columns stay as migration 020 left them, and a batch without them (an API process of the release
// before, during a rolling upgrade) stores null. Frozen in time: Kysely<any>.
import { sql, type Kysely } from 'kysely';

const storeCaptures = (asSent: boolean) => sql`
  create or replace function store_captures_v2(batch json)
  returns table (
    webhook_id text, webhook_ref bigint, forwarding boolean, keep int, owner_id bigint, checked bigint[]
  )
  language plpgsql as $fn$
  begin
    return query
    with v as (
      select * from json_to_recordset(batch) as v(
        ord int, webhook_id text, method text, path text, headers jsonb, body text, body_encoding text,
        body_size int, query_params text, ip_address text, user_agent text, created_at timestamptz,
        matched_rule smallint${sql.raw(asSent ? ', query_string text, answered_status smallint' : '')})
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
         created_at, delivery, matched_rule${sql.raw(asSent ? ', query_string, answered_status' : '')})
      select r.ref, v.method, v.path, v.headers, v.body, v.body_encoding, v.body_size, v.query_params, v.ip_address,
        v.user_agent, v.created_at,
        -- A capture that is itself a forward of ours (x-netops-delivery) is not forwarded again: no circles.
        case when r.forwarding and not (v.headers ? 'x-netops-delivery')
          then '{"status":"pending","attempts":0,"response_status":null,"duration_ms":null,"history":[]}'::jsonb end,
        v.matched_rule${sql.raw(asSent ? ', v.query_string, v.answered_status' : '')}
      from v join refs r on r.webhook_id = v.webhook_id
      order by v.ord
      returning captured_requests.id as new_id, captured_requests.webhook_ref as new_ref
    )
    select r.webhook_id, r.ref, r.forwarding, r.keep, r.owner_ref,
      case when r.has_schema then (select array_agg(i.new_id order by i.new_id) from ins i where i.new_ref = r.ref) end
    from refs r;
  end
  $fn$
`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('captured_requests')
    .addColumn('query_string', 'text')
    .addColumn('answered_status', 'smallint')
    .execute();
  await storeCaptures(true).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await storeCaptures(false).execute(db);
  await db.schema.alterTable('captured_requests').dropColumn('query_string').dropColumn('answered_status').execute();
}
