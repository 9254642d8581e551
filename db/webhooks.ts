import { sql, type Kysely } from 'kysely';
import { newPublicId } from '../lib/tokens.ts';
import type { Plan } from '../lib/plans.ts';
import type { Database, WebhookResponse, WebhookSignature } from './schema.ts';

export interface Webhook {
  id: number;
  webhookId: string;
  createdAt: Date;
}

export interface WebhookWithCount extends Webhook {
  requestCount: number;
  response: WebhookResponse | null;
  signature: WebhookSignature | null;
}

/** One request as the capture URL received it. */
export interface Capture {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null;
  bodyEncoding: 'utf8' | 'base64';
  bodySize: number;
  queryParams: string | null;
  ipAddress: string;
  userAgent: string;
  createdAt: Date;
}

/** A capture on its way to a webhook. */
export interface CaptureRecord extends Capture {
  webhookId: string;
}

/** A stored capture. */
export interface CapturedRequest extends Capture {
  id: number;
}

/** A capture in snake_case: the column names, and the API's field names, which are the same on purpose. */
export function captureFields(c: Capture) {
  return {
    method: c.method,
    path: c.path,
    headers: c.headers,
    body: c.body,
    body_encoding: c.bodyEncoding,
    body_size: c.bodySize,
    query_params: c.queryParams,
    ip_address: c.ipAddress,
    user_agent: c.userAgent,
    created_at: c.createdAt.toISOString(),
  };
}

/**
 * A new webhook of `userId`, unless they own `maxOwned` already (null then). The user's row is locked
 * while counting, so concurrent creations cannot pass the limit together.
 */
export function createWebhook(db: Kysely<Database>, userId: number): Promise<Webhook>;
export function createWebhook(db: Kysely<Database>, userId: number, maxOwned: number, response?: WebhookResponse | null, signature?: WebhookSignature | null): Promise<Webhook | null>;
export async function createWebhook(db: Kysely<Database>, userId: number, maxOwned = Number.MAX_SAFE_INTEGER, response: WebhookResponse | null = null, signature: WebhookSignature | null = null): Promise<Webhook | null> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
    const { owned } = await trx.selectFrom('webhooks').select((eb) => eb.fn.countAll<string>().as('owned')).where('user_id', '=', userId).executeTakeFirstOrThrow();
    if (Number(owned) >= maxOwned) return null;
    const row = await trx
      .insertInto('webhooks')
      .values({ user_id: userId, webhook_id: newPublicId(16), response: response === null ? null : JSON.stringify(response), signature: signature === null ? null : JSON.stringify(signature) })
      .returning(['id', 'webhook_id', 'created_at'])
      .executeTakeFirstOrThrow();
    return { id: Number(row.id), webhookId: row.webhook_id, createdAt: row.created_at };
  });
}

/** Who owns a webhook, and on which plan (null: no such webhook). */
export async function webhookOwner(db: Kysely<Database>, webhookId: string): Promise<{ userId: number; plan: Plan; response: WebhookResponse | null } | null> {
  const row = await db
    .selectFrom('webhooks')
    .innerJoin('users', 'users.id', 'webhooks.user_id')
    .select(['users.id as userId', 'users.plan as plan', 'webhooks.response as response'])
    .where('webhooks.webhook_id', '=', webhookId)
    .executeTakeFirst();
  return row ? { userId: Number(row.userId), plan: row.plan, response: parsedJson(row.response) } : null;
}

/** Sets what the caller's webhook answers and how it checks signatures (undefined: unchanged, null: none); false when it is not theirs. */
export async function setWebhookSettings(db: Kysely<Database>, userId: number, webhookId: string, settings: { response?: WebhookResponse | null; signature?: WebhookSignature | null }): Promise<boolean> {
  const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
  const changes = { ...(settings.response !== undefined ? { response: json(settings.response) } : {}), ...(settings.signature !== undefined ? { signature: json(settings.signature) } : {}) };
  const q = db.selectFrom('webhooks').select('id').where('webhook_id', '=', webhookId).where('user_id', '=', userId);
  if (Object.keys(changes).length === 0) return (await q.executeTakeFirst()) !== undefined;
  const r = await db.updateTable('webhooks').set(changes).where('webhook_id', '=', webhookId).where('user_id', '=', userId).returning('id').executeTakeFirst();
  return r !== undefined;
}


/** A jsonb value as it comes back: parsed by Postgres's driver, a string from some others. */
function parsedJson<T>(v: T | string | null): T | null {
  return typeof v === 'string' ? (JSON.parse(v) as T) : v;
}

/** The caller's webhooks, newest first, with how many captured requests each holds (at most `limit`). */
export async function listWebhooks(db: Kysely<Database>, userId: number, limit: number): Promise<WebhookWithCount[]> {
  const rows = await db
    .selectFrom('webhooks as w')
    .select((eb) => [
      'w.id',
      'w.webhook_id',
      'w.created_at',
      'w.response',
      'w.signature',
      // Counting at most `limit` rows keeps this cheap however many are waiting to be trimmed.
      eb
        .selectFrom((sub) => sub.selectFrom('captured_requests as c').whereRef('c.webhook_ref', '=', 'w.id').select('c.id').limit(limit).as('kept'))
        .select(eb.fn.countAll().as('n'))
        .as('request_count'),
    ])
    .where('w.user_id', '=', userId)
    .orderBy('w.id', 'desc')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), webhookId: r.webhook_id, createdAt: r.created_at, requestCount: Number(r.request_count ?? 0), response: parsedJson(r.response), signature: parsedJson(r.signature) }));
}

/** One capture of a webhook (by its id), or null. */
export async function findCapture(db: Kysely<Database>, webhookRef: number, captureId: number): Promise<CapturedRequest | null> {
  const [row] = await listCapturedRequests(db, webhookRef, 1, captureId - 1, { beforeId: captureId + 1 });
  return row ?? null;
}

/** The webhook (with its signature setting) when `userId` owns it; null for unknown and foreign ids alike. */
export async function findOwnedWebhook(db: Kysely<Database>, userId: number, webhookId: string): Promise<(Webhook & { signature: WebhookSignature | null }) | null> {
  const row = await db
    .selectFrom('webhooks')
    .select(['id', 'webhook_id', 'created_at', 'signature'])
    .where('webhook_id', '=', webhookId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row ? { id: Number(row.id), webhookId: row.webhook_id, createdAt: row.created_at, signature: parsedJson(row.signature) } : null;
}

/**
 * Deletes an owned webhook and, by a trigger, its captured requests (those of capture batches still
 * open at that moment included: see migration 2026-11-22-006). False when not found or not owned.
 */
export async function deleteOwnedWebhook(db: Kysely<Database>, userId: number, webhookId: string): Promise<boolean> {
  const result = await db.deleteFrom('webhooks').where('webhook_id', '=', webhookId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The newest `limit` captured requests of one webhook (only those after `afterId` when given), newest first. */
/** What a search of captures keeps: every filter given must hold. */
export interface CaptureFilter {
  method?: string;
  /** A header present (value undefined) or with exactly this value; the name lower-case. */
  header?: { name: string; value?: string };
  /** Text anywhere in a UTF-8 body, case-insensitive. */
  text?: string;
  since?: Date;
  until?: Date;
  /** Only captures older than this one (the next page, newest first). */
  beforeId?: number;
}

export async function listCapturedRequests(db: Kysely<Database>, webhookRef: number, limit: number, afterId = 0, filter: CaptureFilter = {}): Promise<CapturedRequest[]> {
  let q = db.selectFrom('captured_requests').selectAll().where('webhook_ref', '=', webhookRef).where('id', '>', afterId);
  if (filter.beforeId !== undefined) q = q.where('id', '<', filter.beforeId);
  if (filter.method) q = q.where('method', '=', filter.method);
  if (filter.since) q = q.where('created_at', '>=', filter.since);
  if (filter.until) q = q.where('created_at', '<', filter.until);
  if (filter.header) {
    const { name, value } = filter.header;
    q = value === undefined ? q.where(sql<boolean>`headers ? ${name}`) : q.where(sql<boolean>`headers ->> ${name} = ${value}`);
  }
  if (filter.text) {
    // LIKE's own characters taken literally.
    const pattern = `%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where('body_encoding', '=', 'utf8').where(sql<boolean>`body ilike ${pattern}`);
  }
  const rows = await q.orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    method: r.method,
    path: r.path,
    headers: r.headers,
    body: r.body,
    bodyEncoding: r.body_encoding,
    bodySize: r.body_size,
    queryParams: r.query_params,
    ipAddress: r.ip_address,
    userAgent: r.user_agent,
    createdAt: r.created_at,
  }));
}

/**
 * Stores a batch of captures in one statement. Captures for unknown or just-deleted webhooks are
 * dropped, not stored. Returns, per stored webhook public id, its row id and how many rows this batch
 * added to it.
 */
export async function insertCaptures(db: Kysely<Database>, records: readonly CaptureRecord[]): Promise<Map<string, { ref: number; added: number }>> {
  const payload = JSON.stringify(records.map((r, ord) => ({ ord, webhook_id: r.webhookId, ...captureFields(r) })));
  // See migration 2026-11-22-006: one call, its plan kept by the session.
  const found = await sql<{ webhook_id: string; webhook_ref: string | number }>`
    select webhook_id, webhook_ref from store_captures(${payload}::json)
  `.execute(db);
  const stored = new Map(found.rows.map((r) => [r.webhook_id, { ref: Number(r.webhook_ref), added: 0 }]));
  for (const r of records) {
    const entry = stored.get(r.webhookId);
    if (entry) entry.added += 1;
  }
  return stored;
}

/**
 * The bytes of captured bodies (as stored) each of `userIds` keeps; for those over their plan's
 * `maxBytes`, the oldest captures over all their webhooks are deleted until they are not. Answers
 * each user's bytes after (at most their bound).
 */
export async function trimCaptureBytes(db: Kysely<Database>, userIds: readonly number[], maxBytes: Readonly<Record<Plan, number>>): Promise<Map<number, number>> {
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

/** Deletes all but the newest `keep` captured requests of each webhook. */
export async function trimCaptures(db: Kysely<Database>, webhookRefs: readonly number[], keep: number): Promise<void> {
  if (webhookRefs.length === 0) return;
  // Per webhook: find the oldest row that stays (walking the newest-first index), delete below it.
  await sql`
    delete from captured_requests c
    using (
      select t.ref, (select x.id from captured_requests x where x.webhook_ref = t.ref order by x.id desc offset ${keep - 1} limit 1) as floor_id
      from unnest(${webhookRefs}::bigint[]) as t(ref)
    ) f
    where c.webhook_ref = f.ref and c.id < f.floor_id
  `.execute(db);
}
