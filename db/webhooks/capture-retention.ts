// What a webhook keeps: its newest `max_requests` captures, none older than `max_age_days` (its own
// retention, else its owner's plan's defaults), and what a user keeps over all their webhooks (the
// plan's bytes). Listings read only what is kept (keptBounds), whatever is still waiting to be
// deleted; deleting happens off the capture path: by count after a capture batch (capture-writer.ts),
// by age and count for every webhook in the scheduled expiry job (workflows/webhooks.ts).
import { sql, type Kysely } from 'kysely';
import { effectiveRetention, type Plan } from '../../lib/plans.ts';
import { listCapturedRequests, type CapturedRequest, type CaptureFilter } from './captured-requests.ts';
import type { Database, WebhookRetention } from '../schema.ts';

/** The oldest capture id and time a listing shows for a webhook that keeps by `retention`. */
export async function keptBounds(
  db: Kysely<Database>,
  webhookRef: number,
  retention: WebhookRetention,
): Promise<{ minId: number; since: Date }> {
  const floor = await db
    .selectFrom('captured_requests')
    .select('id')
    .where('webhook_ref', '=', webhookRef)
    .orderBy('id', 'desc')
    .offset(retention.max_requests - 1)
    .limit(1)
    .executeTakeFirst();
  return { minId: floor ? Number(floor.id) : 0, since: new Date(Date.now() - retention.max_age_days * 86_400_000) };
}

/**
 * What a listing of the webhook shows: keptBounds of the retention in effect (its own, within its
 * owner's plan now).
 */
export async function keptOf(
  db: Kysely<Database>,
  webhook: { id: number; plan: Plan; retention: WebhookRetention | null },
): Promise<{ minId: number; since: Date }> {
  return keptBounds(db, webhook.id, effectiveRetention(webhook.plan, webhook.retention));
}

/** `filter` narrowed to what the webhook keeps (a `since` before what it keeps is raised to it). */
export async function keptFilter(
  db: Kysely<Database>,
  webhook: { id: number; plan: Plan; retention: WebhookRetention | null },
  filter: CaptureFilter,
): Promise<CaptureFilter & { minId: number; since: Date }> {
  const bounds = await keptOf(db, webhook);
  const since = filter.since && filter.since > bounds.since ? filter.since : bounds.since;
  return { ...filter, ...bounds, since };
}

/**
 * What a wait for a capture looks for: the first capture (oldest first) the webhook keeps that matches
 * `filter` with an id above `afterId`, or null (a wait that starts now waits beyond newestCaptureId).
 */
export async function firstKeptCapture(
  db: Kysely<Database>,
  webhook: { id: number; plan: Plan; retention: WebhookRetention | null },
  filter: CaptureFilter,
  afterId: number,
): Promise<CapturedRequest | null> {
  const kept = await keptFilter(db, webhook, filter);
  return (await listCapturedRequests(db, webhook.id, 1, afterId, { ...kept, oldestFirst: true }))[0] ?? null;
}

/** Deletes all but the newest captures each webhook keeps (its retention's max_requests, else `defaultKeep`). */
export async function trimCaptures(
  db: Kysely<Database>,
  webhookRefs: readonly number[],
  defaultKeep: number,
): Promise<void> {
  if (webhookRefs.length === 0) return;
  // Per webhook: find the oldest row that stays (walking the newest-first index), delete below it.
  await sql`
    delete from captured_requests c
    using (
      select t.ref, (
        select x.id from captured_requests x where x.webhook_ref = t.ref order by x.id desc
        offset greatest(coalesce((w.retention ->> 'max_requests')::int, ${defaultKeep}) - 1, 0) limit 1
      ) as floor_id
      from unnest(${webhookRefs}::bigint[]) as t(ref) join webhooks w on w.id = t.ref
    ) f
    where c.webhook_ref = f.ref and c.id < f.floor_id
  `.execute(db);
}

/**
 * The scheduled expiry: for every webhook, deletes the captures older than it keeps them and those
 * past its count (its retention, else its owner's plan's `defaults`, never past the plan's `caps`,
 * a downgrade included). Answers how many captures were deleted. Age: ids grow with time, so each
 * webhook's first capture young enough is found walking its index from the oldest (past only what
 * goes), and everything below it goes.
 */
export async function expireCaptures(
  db: Kysely<Database>,
  defaults: Readonly<Record<Plan, WebhookRetention>>,
  caps: Readonly<Record<Plan, WebhookRetention>>,
): Promise<number> {
  const byPlan = JSON.stringify(
    Object.fromEntries(
      Object.keys(defaults).map((plan) => [
        plan,
        {
          ...defaults[plan as Plan],
          cap_requests: caps[plan as Plan].max_requests,
          cap_days: caps[plan as Plan].max_age_days,
        },
      ]),
    ),
  );
  let deleted = 0;
  // EXPIRY_CHUNK webhooks per statement: PGlite runs one statement at a time, so each statement's
  // walk is kept short and captures, and the API, go on between them.
  for (let after = 0; ; ) {
    const chunk = await db
      .selectFrom('webhooks')
      .select('id')
      .where('id', '>', after)
      .orderBy('id')
      .limit(EXPIRY_CHUNK)
      .execute();
    if (chunk.length === 0) return deleted;
    const refs = chunk.map((w) => Number(w.id));
    after = refs[refs.length - 1] ?? after;
    deleted += await expireChunk(db, byPlan, refs);
  }
}

/** Webhooks per statement of the scheduled expiry. */
const EXPIRY_CHUNK = 25;

async function expireChunk(db: Kysely<Database>, byPlan: string, refs: readonly number[]): Promise<number> {
  const kept = sql`
    select w.id as ref,
      least(
        coalesce((w.retention ->> 'max_requests')::int, (p.v ->> 'max_requests')::int),
        (p.v ->> 'cap_requests')::int
      ) as keep,
      now() - make_interval(days => least(
        coalesce((w.retention ->> 'max_age_days')::int, (p.v ->> 'max_age_days')::int),
        (p.v ->> 'cap_days')::int
      )) as cutoff
    from webhooks w join users u on u.id = w.user_id
    cross join lateral (select (${byPlan}::jsonb -> u.plan) as v) p
    where w.id = any(${refs}::bigint[])
  `;
  // Each webhook's floor is found once, in a materialized CTE: left inline, the planner joined every
  // capture to its webhook first and ran the floor's index walk once per capture (quadratic: 28 s
  // for 100 webhooks of 1,000 captures each on PGlite, 67 ms now).
  const aged = await sql`
    with f as materialized (
      select k.ref, coalesce(
        (select x.id from captured_requests x where x.webhook_ref = k.ref and x.created_at >= k.cutoff
          order by x.id limit 1),
        (select max(x.id) + 1 from captured_requests x where x.webhook_ref = k.ref)
      ) as floor_id
      from (${kept}) k
    )
    delete from captured_requests c using f
    where c.webhook_ref = any(${refs}::bigint[]) and c.webhook_ref = f.ref and c.id < f.floor_id
  `.execute(db);
  const counted = await sql`
    with f as materialized (
      select k.ref, (
        select x.id from captured_requests x where x.webhook_ref = k.ref
        order by x.id desc offset greatest(k.keep - 1, 0) limit 1
      ) as floor_id
      from (${kept}) k
    )
    delete from captured_requests c using f
    where c.webhook_ref = any(${refs}::bigint[]) and c.webhook_ref = f.ref and c.id < f.floor_id
  `.execute(db);
  return Number(aged.numAffectedRows ?? 0n) + Number(counted.numAffectedRows ?? 0n);
}

/**
 * The bytes of captured bodies (as stored) each of `userIds` keeps; for those over their plan's
 * `maxBytes`, the oldest captures over all their webhooks are deleted until they are not. Answers
 * each user's bytes after (at most their bound).
 */
export async function trimCaptureBytes(
  db: Kysely<Database>,
  userIds: readonly number[],
  maxBytes: Readonly<Record<Plan, number>>,
): Promise<Map<number, number>> {
  const kept = new Map<number, number>();
  if (userIds.length === 0) return kept;
  const totals = await sql<{ user_id: string | number; plan: Plan; total: string | number }>`
    select w.user_id, u.plan, coalesce(sum(octet_length(x.body)), 0) as total
    from webhooks w
    join users u on u.id = w.user_id
    left join captured_requests x on x.webhook_ref = w.id
    where w.user_id = any(${userIds}::bigint[])
    group by w.user_id, u.plan
  `.execute(db);
  const over: Array<{ user: number; cap: number }> = [];
  for (const r of totals.rows) {
    const user = Number(r.user_id);
    const cap = maxBytes[r.plan];
    kept.set(user, Math.min(Number(r.total), cap));
    if (Number(r.total) > cap) over.push({ user, cap });
  }
  for (const { user, cap } of over) {
    // Only a user over their bound has their captures ranked, newest first.
    await sql`
      delete from captured_requests c
      using (
        select r.webhook_ref, r.id from (
          select x.webhook_ref, x.id, sum(coalesce(octet_length(x.body), 0)) over (order by x.id desc) as running
          from webhooks w join captured_requests x on x.webhook_ref = w.id
          where w.user_id = ${user}
        ) r
        where r.running > ${cap}
      ) d
      where c.webhook_ref = d.webhook_ref and c.id = d.id
    `.execute(db);
  }
  return kept;
}
