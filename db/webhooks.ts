import { sql, type Kysely } from 'kysely';
import { newPublicId } from '../lib/tokens.ts';
import type { Plan } from '../lib/plans.ts';
import type { CaptureDelivery, Database, WebhookResponse, WebhookRetention, WebhookSignature } from './schema.ts';

export interface Webhook {
  id: number;
  webhookId: string;
  createdAt: Date;
}

/** What an owner sets on a webhook (each null: the default / none). */
export interface WebhookSettings {
  response: WebhookResponse | null;
  signature: WebhookSignature | null;
  forwardUrl: string | null;
  retention: WebhookRetention | null;
}

export interface WebhookWithCount extends Webhook, WebhookSettings {
  requestCount: number;
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
  delivery: CaptureDelivery | null;
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
export function createWebhook(
  db: Kysely<Database>,
  userId: number,
  maxOwned: number,
  settings?: Partial<WebhookSettings>,
): Promise<Webhook | null>;
export async function createWebhook(
  db: Kysely<Database>,
  userId: number,
  maxOwned = Number.MAX_SAFE_INTEGER,
  settings: Partial<WebhookSettings> = {},
): Promise<Webhook | null> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
    const { owned } = await trx
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<string>().as('owned'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    if (Number(owned) >= maxOwned) return null;
    const row = await trx
      .insertInto('webhooks')
      .values({ user_id: userId, webhook_id: newPublicId(16), ...settingColumns(settings) })
      .returning(['id', 'webhook_id', 'created_at'])
      .executeTakeFirstOrThrow();
    return { id: Number(row.id), webhookId: row.webhook_id, createdAt: row.created_at };
  });
}

/** The columns of the settings given (undefined: not given, left as they are). */
function settingColumns(settings: Partial<WebhookSettings>) {
  const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
  return {
    ...(settings.response !== undefined ? { response: json(settings.response) } : {}),
    ...(settings.signature !== undefined ? { signature: json(settings.signature) } : {}),
    ...(settings.retention !== undefined ? { retention: json(settings.retention) } : {}),
    ...(settings.forwardUrl !== undefined ? { forward_url: settings.forwardUrl } : {}),
  };
}

/** Who owns a webhook, and on which plan (null: no such webhook). */
export async function webhookOwner(
  db: Kysely<Database>,
  webhookId: string,
): Promise<{ userId: number; plan: Plan; response: WebhookResponse | null } | null> {
  const row = await db
    .selectFrom('webhooks')
    .innerJoin('users', 'users.id', 'webhooks.user_id')
    .select(['users.id as userId', 'users.plan as plan', 'webhooks.response as response'])
    .where('webhooks.webhook_id', '=', webhookId)
    .executeTakeFirst();
  return row ? { userId: Number(row.userId), plan: row.plan, response: parsedJson(row.response) } : null;
}

/** Changes the settings given of the caller's webhook (the others stay); false when it is not theirs. */
export async function setWebhookSettings(
  db: Kysely<Database>,
  userId: number,
  webhookId: string,
  settings: Partial<WebhookSettings>,
): Promise<boolean> {
  const changes = settingColumns(settings);
  const q = db.selectFrom('webhooks').select('id').where('webhook_id', '=', webhookId).where('user_id', '=', userId);
  if (Object.keys(changes).length === 0) return (await q.executeTakeFirst()) !== undefined;
  const r = await db
    .updateTable('webhooks')
    .set(changes)
    .where('webhook_id', '=', webhookId)
    .where('user_id', '=', userId)
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

/** A jsonb value as it comes back: parsed by Postgres's driver, a string from some others. */
function parsedJson<T>(v: T | string | null): T | null {
  return typeof v === 'string' ? (JSON.parse(v) as T) : v;
}

/**
 * The caller's webhooks, newest first, with how many captures each keeps (its retention, else
 * `defaults`, within `caps`: what is past it and not yet deleted is not counted).
 */
export async function listWebhooks(
  db: Kysely<Database>,
  userId: number,
  defaults: WebhookRetention,
  caps: WebhookRetention = { max_requests: 2 ** 31 - 1, max_age_days: 36_500 },
): Promise<WebhookWithCount[]> {
  const rows = await db
    .selectFrom('webhooks as w')
    .select(['w.id', 'w.webhook_id', 'w.created_at', 'w.response', 'w.signature', 'w.forward_url', 'w.retention'])
    .select(
      sql<string>`(select count(*) from (
        select 1 from captured_requests c where c.webhook_ref = w.id
          and c.created_at >= now() - make_interval(days => least(coalesce((w.retention ->> 'max_age_days')::int, ${defaults.max_age_days}), ${caps.max_age_days}))
        order by c.id desc limit least(coalesce((w.retention ->> 'max_requests')::int, ${defaults.max_requests}), ${caps.max_requests})
      ) kept)`.as('request_count'),
    )
    .where('w.user_id', '=', userId)
    .orderBy('w.id', 'desc')
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    webhookId: r.webhook_id,
    createdAt: r.created_at,
    requestCount: Number(r.request_count ?? 0),
    ...settingsOf(r),
  }));
}

/** How many of the user's webhooks forward, besides `except`. */
export async function countForwarding(db: Kysely<Database>, userId: number, except: string | null): Promise<number> {
  let q = db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('forward_url', 'is not', null);
  if (except) q = q.where('webhook_id', '!=', except);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** A webhook row's settings as the code uses them. */
function settingsOf(r: {
  response: WebhookResponse | null;
  signature: WebhookSignature | null;
  forward_url: string | null;
  retention: WebhookRetention | null;
}): WebhookSettings {
  return {
    response: parsedJson(r.response),
    signature: parsedJson(r.signature),
    forwardUrl: r.forward_url,
    retention: parsedJson(r.retention),
  };
}

/** One capture of a webhook (by its id), or null. */
export async function findCapture(
  db: Kysely<Database>,
  webhookRef: number,
  captureId: number,
): Promise<CapturedRequest | null> {
  const [row] = await listCapturedRequests(db, webhookRef, 1, captureId - 1, { beforeId: captureId + 1 });
  return row ?? null;
}

/** The webhook (with its settings and its owner's plan) when `userId` owns it; null for unknown and foreign ids alike. */
export async function findOwnedWebhook(
  db: Kysely<Database>,
  userId: number,
  webhookId: string,
): Promise<(Webhook & WebhookSettings & { plan: Plan }) | null> {
  const row = await db
    .selectFrom('webhooks as w')
    .innerJoin('users as u', 'u.id', 'w.user_id')
    .select([
      'w.id',
      'w.webhook_id',
      'w.created_at',
      'w.response',
      'w.signature',
      'w.forward_url',
      'w.retention',
      'u.plan',
    ])
    .where('w.webhook_id', '=', webhookId)
    .where('w.user_id', '=', userId)
    .executeTakeFirst();
  return row
    ? { id: Number(row.id), webhookId: row.webhook_id, createdAt: row.created_at, plan: row.plan, ...settingsOf(row) }
    : null;
}

/**
 * Deletes an owned webhook and, by a trigger, its captured requests (those of capture batches still
 * open at that moment included: see migration 2026-11-22-006). False when not found or not owned.
 */
export async function deleteOwnedWebhook(db: Kysely<Database>, userId: number, webhookId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhooks')
    .where('webhook_id', '=', webhookId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

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
  /** Only this capture and newer ones (what the webhook keeps by count). */
  minId?: number;
  /** Only these captures. */
  ids?: readonly number[];
  /** None of these (a stream's captures already sent). */
  notIds?: readonly number[];
  /** Only captures whose delivery to the forward URL is pending. */
  pendingDelivery?: boolean;
  /** The oldest `limit` instead of the newest (a stream catching up after a gap, a page at a time). */
  oldestFirst?: boolean;
}

/**
 * The newest `limit` captured requests of one webhook (only those after `afterId` when given), newest
 * first, keeping to `filter`.
 */
export async function listCapturedRequests(
  db: Kysely<Database>,
  webhookRef: number,
  limit: number,
  afterId = 0,
  filter: CaptureFilter = {},
): Promise<CapturedRequest[]> {
  const rows = await capturesWhere(db, webhookRef, afterId, filter)
    .selectAll()
    .orderBy('id', filter.oldestFirst ? 'asc' : 'desc')
    .limit(limit)
    .execute();
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
    delivery: parsedJson(r.delivery),
  }));
}

/** How many captured requests of one webhook keep to `filter` (all of them, not a page). */
export async function countCapturedRequests(
  db: Kysely<Database>,
  webhookRef: number,
  filter: CaptureFilter = {},
): Promise<number> {
  const row = await capturesWhere(db, webhookRef, 0, filter)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The captures of one webhook after `afterId` that keep to `filter`, as a query to select from. */
function capturesWhere(db: Kysely<Database>, webhookRef: number, afterId: number, filter: CaptureFilter) {
  let q = db.selectFrom('captured_requests').where('webhook_ref', '=', webhookRef).where('id', '>', afterId);
  if (filter.beforeId !== undefined) q = q.where('id', '<', filter.beforeId);
  if (filter.minId) q = q.where('id', '>=', filter.minId);
  if (filter.ids) q = q.where('id', '=', sql<number>`any(${filter.ids.map(Number)}::bigint[])`);
  if (filter.notIds?.length) q = q.where('id', '<>', sql<number>`all(${filter.notIds.map(Number)}::bigint[])`);
  if (filter.pendingDelivery) q = q.where(sql<boolean>`(delivery ->> 'status') = 'pending'`);
  if (filter.method) q = q.where('method', '=', filter.method);
  if (filter.since) q = q.where('created_at', '>=', filter.since);
  if (filter.until) q = q.where('created_at', '<', filter.until);
  if (filter.header) {
    const { name, value } = filter.header;
    q =
      value === undefined
        ? q.where(sql<boolean>`headers ? ${name}`)
        : q.where(sql<boolean>`headers ->> ${name} = ${value}`);
  }
  if (filter.text) {
    // LIKE's own characters taken literally.
    const pattern = `%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where('body_encoding', '=', 'utf8').where(sql<boolean>`body ilike ${pattern}`);
  }
  return q;
}

/**
 * Stores a batch of captures in one statement. Captures for unknown or just-deleted webhooks are
 * dropped, not stored. Returns, per stored webhook public id, its row id, how many rows this batch
 * added to it, whether it forwards them (they are then stored with their delivery pending) and how
 * many captures it keeps when it says (null: the default).
 */
export async function insertCaptures(
  db: Kysely<Database>,
  records: readonly CaptureRecord[],
): Promise<Map<string, { ref: number; added: number; forwarding: boolean; keep: number | null }>> {
  const payload = JSON.stringify(records.map((r, ord) => ({ ord, webhook_id: r.webhookId, ...captureFields(r) })));
  // See migrations 2026-11-22-006 and 2026-11-23-011: one call, its plan kept by the session.
  const found = await sql<{
    webhook_id: string;
    webhook_ref: string | number;
    forwarding: boolean;
    keep: number | null;
  }>`
    select webhook_id, webhook_ref, forwarding, keep from store_captures_v2(${payload}::json)
  `.execute(db);
  const stored = new Map(
    found.rows.map((r) => [
      r.webhook_id,
      { ref: Number(r.webhook_ref), added: 0, forwarding: r.forwarding, keep: r.keep === null ? null : Number(r.keep) },
    ]),
  );
  for (const r of records) {
    const entry = stored.get(r.webhookId);
    if (entry) entry.added += 1;
  }
  return stored;
}
