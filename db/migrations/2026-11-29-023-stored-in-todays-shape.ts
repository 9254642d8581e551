// Rows stored before a shape settled are rewritten into today's, so that readers know one shape only:
// - a shard attempt's phases, kept in its snapshot before they had a column (019), move to the column;
// - a capture stored before its query was kept as sent (021) gets it rebuilt from its parsed pairs
//   (spaces as `+`, the URL encoder's percent-encodings, a repeated name's values together): what
//   its readers rebuilt on every read until now, so nothing it shows changes (an API process of the
//   release before, while an upgrade goes on, may still store one without it: readers rebuild that one);
// - captured_requests.query_params and load_test_replays.requests, JSON kept as text, become json:
//   checked JSON, kept as written (jsonb would reorder the keys: a query's names, a replayed request's
//   headers, which are shown and sent in their order). store_captures_v2 casts the text it is given:
//   its signature and its callers stay as they are.
// What never existed cannot be rewritten: a second of a test run before seconds had histograms and
// statuses (018 moved those seconds out of the snapshots with their counts, sums and slowest only)
// keeps what it has. Its percentiles, status classes and phases were never counted: the series gives
// them absent (null, an empty CSV cell), as it did, never zeros or figures made up from a mean.
// Frozen in time: Kysely<any>, its own copy of what it computes.
import { sql, type Kysely } from 'kysely';

const BATCH = 500;

/** The query rebuilt from its pairs (a JSON object; repeated names as lists), as readers did before. */
function rebuiltQuery(queryParams: string): string {
  const pairs = Object.entries(JSON.parse(queryParams) as Record<string, string | string[]>).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map((x) => [k, String(x)]),
  );
  return new URLSearchParams(pairs).toString();
}

const storeCaptures = (paramsAs: 'json' | 'text') => sql`
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
        matched_rule smallint, query_string text, answered_status smallint)
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
         created_at, delivery, matched_rule, query_string, answered_status)
      select r.ref, v.method, v.path, v.headers, v.body, v.body_encoding, v.body_size,
        v.query_params::${sql.raw(paramsAs)}, v.ip_address, v.user_agent, v.created_at,
        -- A capture that is itself a forward of ours (x-netops-delivery) is not forwarded again: no circles.
        case when r.forwarding and not (v.headers ? 'x-netops-delivery')
          then '{"status":"pending","attempts":0,"response_status":null,"duration_ms":null,"history":[]}'::jsonb end,
        v.matched_rule, v.query_string, v.answered_status
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
  // A row written since keeps its phases in the column only; one with both keeps the column's (the later).
  await sql`
    update load_test_shards set phases = coalesce(phases, snapshot -> 'phases'), snapshot = snapshot - 'phases'
    where snapshot ? 'phases'
  `.execute(db);

  // In id order, a batch at a time (each row read once).
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('captured_requests')
      .select(['id', 'query_params'])
      .where('query_string', 'is', null)
      .where('query_params', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (!rows.length) break;
    after = Number(rows.at(-1)?.id ?? after);
    const values = rows.map((r) => sql`(${Number(r.id)}::bigint, ${rebuiltQuery(r.query_params)}::text)`);
    await sql`
      update captured_requests c set query_string = v.query from (values ${sql.join(values)}) as v (id, query)
      where c.id = v.id
    `.execute(db);
  }

  await sql`alter table captured_requests alter column query_params type json using query_params::json`.execute(db);
  await storeCaptures('json').execute(db);
  await sql`alter table load_test_replays alter column requests type json using requests::json`.execute(db);
}

/** The columns back to text (their text as written); the rewritten rows stay readable as they are. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table load_test_replays alter column requests type text using requests::text`.execute(db);
  await sql`alter table captured_requests alter column query_params type text using query_params::text`.execute(db);
  await storeCaptures('text').execute(db);
}
