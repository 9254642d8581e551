// The webhooks table: a user's webhooks and their settings (what each answers, checks, forwards, keeps).
// The captures' own table is db/webhooks/captured-requests.ts, re-exported here for the modules that import it from
// here.
import { sql, type Kysely } from 'kysely';
import { newPublicId } from '../../lib/auth/tokens.ts';
import type { Plan } from '../../lib/plans.ts';
import type {
  Database,
  JsonSchema,
  ResponseRule,
  WebhookResponse,
  WebhookRetention,
  WebhookSignature,
} from '../schema.ts';
import {
  readNullableJsonColumn,
  webhookResponseColumn,
  webhookRetentionColumn,
  webhookRulesColumn,
  webhookSchemaColumn,
  webhookSignatureColumn,
} from '../json-columns.ts';

export {
  captureFields,
  countCapturedRequests,
  findCapture,
  insertCaptures,
  listCapturedRequests,
  type Capture,
  type CapturedRequest,
  type CaptureFilter,
  type CaptureRecord,
} from './captured-requests.ts';

export interface Webhook {
  id: number;
  webhookId: string;
  createdAt: Date;
}

/** What an owner sets on a webhook (each null: the default / none). */
export interface WebhookSettings {
  response: WebhookResponse | null;
  rules: ResponseRule[] | null;
  schema: JsonSchema | null;
  signature: WebhookSignature | null;
  forwardUrl: string | null;
  retention: WebhookRetention | null;
}

export interface WebhookWithCount extends Webhook, WebhookSettings {
  requestCount: number;
}

/**
 * Thrown (its transaction rolled back) when a webhook would forward while its owner has `most` that do:
 * the count is taken with the owner's row locked, so concurrent updates cannot pass the limit together.
 */
export class ForwardingFullError extends Error {
  readonly most: number;
  constructor(most: number) {
    super(`at most ${most} webhooks forward at once`);
    this.most = most;
  }
}

/**
 * A new webhook of `userId`, unless they own `maxOwned` already (null then). The user's row is locked
 * while counting, so concurrent creations cannot pass the limit together; a webhook made forwarding
 * counts against `maxForwarding` the same way (ForwardingFullError).
 */
export function createWebhook(db: Kysely<Database>, userId: number): Promise<Webhook>;
export function createWebhook(
  db: Kysely<Database>,
  userId: number,
  maxOwned: number,
  settings?: Partial<WebhookSettings>,
  maxForwarding?: number,
): Promise<Webhook | null>;
export async function createWebhook(
  db: Kysely<Database>,
  userId: number,
  maxOwned = Number.MAX_SAFE_INTEGER,
  settings: Partial<WebhookSettings> = {},
  maxForwarding = Number.MAX_SAFE_INTEGER,
): Promise<Webhook | null> {
  return db.transaction().execute(async (trx) => {
    await lockOwner(trx, userId);
    const { owned } = await trx
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<string>().as('owned'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    if (Number(owned) >= maxOwned) return null;
    if (settings.forwardUrl && (await countForwarding(trx, userId, null)) >= maxForwarding)
      throw new ForwardingFullError(maxForwarding);
    const row = await trx
      .insertInto('webhooks')
      .values({ user_id: userId, webhook_id: newPublicId(16), ...settingColumns(settings) })
      .returning(['id', 'webhook_id', 'created_at'])
      .executeTakeFirstOrThrow();
    return { id: Number(row.id), webhookId: row.webhook_id, createdAt: row.created_at };
  });
}

/** Locks the user's row until the transaction ends: counts of what they own stay true until it is written. */
async function lockOwner(trx: Kysely<Database>, userId: number): Promise<void> {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}

/** The columns of the settings given (undefined: not given, left as they are). */
function settingColumns(settings: Partial<WebhookSettings>) {
  const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
  return {
    ...(settings.response !== undefined ? { response: json(settings.response) } : {}),
    ...(settings.rules !== undefined ? { rules: json(settings.rules) } : {}),
    ...(settings.schema !== undefined ? { json_schema: json(settings.schema) } : {}),
    ...(settings.signature !== undefined ? { signature: json(settings.signature) } : {}),
    ...(settings.retention !== undefined ? { retention: json(settings.retention) } : {}),
    ...(settings.forwardUrl !== undefined ? { forward_url: settings.forwardUrl } : {}),
  };
}

/**
 * Changes the settings given of the caller's webhook (the others stay); false when it is not theirs. One
 * set forwarding counts against `maxForwarding` with the owner's row locked (ForwardingFullError).
 */
export async function setWebhookSettings(
  db: Kysely<Database>,
  userId: number,
  webhookId: string,
  settings: Partial<WebhookSettings>,
  maxForwarding = Number.MAX_SAFE_INTEGER,
): Promise<boolean> {
  const changes = settingColumns(settings);
  const q = db.selectFrom('webhooks').select('id').where('webhook_id', '=', webhookId).where('user_id', '=', userId);
  if (Object.keys(changes).length === 0) return (await q.executeTakeFirst()) !== undefined;
  const update = (on: Kysely<Database>) =>
    on
      .updateTable('webhooks')
      .set(changes)
      .where('webhook_id', '=', webhookId)
      .where('user_id', '=', userId)
      .returning('id')
      .executeTakeFirst();
  if (!settings.forwardUrl) return (await update(db)) !== undefined;
  // Forwarding from now: counted with the owner's row locked, as createWebhook counts.
  return db.transaction().execute(async (trx) => {
    await lockOwner(trx, userId);
    if ((await countForwarding(trx, userId, webhookId)) >= maxForwarding) throw new ForwardingFullError(maxForwarding);
    return (await update(trx)) !== undefined;
  });
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
    .select(WEBHOOK_COLUMNS)
    .select(
      sql<string>`(select count(*) from (
        select 1 from captured_requests c where c.webhook_ref = w.id
          and c.created_at >= now() - make_interval(days => least(
            coalesce((w.retention ->> 'max_age_days')::int, ${defaults.max_age_days}),
            ${caps.max_age_days}
          ))
        order by c.id desc
        limit least(coalesce((w.retention ->> 'max_requests')::int, ${defaults.max_requests}), ${caps.max_requests})
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

/** The columns of a webhook row that settingsOf reads, besides its ids and time. */
const WEBHOOK_COLUMNS = [
  'w.id',
  'w.webhook_id',
  'w.created_at',
  'w.response',
  'w.rules',
  'w.json_schema',
  'w.signature',
  'w.forward_url',
  'w.retention',
] as const;

/** A webhook row's settings as the code uses them. */
function settingsOf(r: {
  response: WebhookResponse | null;
  rules: ResponseRule[] | null;
  json_schema: JsonSchema | null;
  signature: WebhookSignature | null;
  forward_url: string | null;
  retention: WebhookRetention | null;
}): WebhookSettings {
  return {
    response: readNullableJsonColumn('webhooks.response', webhookResponseColumn, r.response),
    rules: readNullableJsonColumn('webhooks.rules', webhookRulesColumn, r.rules),
    schema: readNullableJsonColumn('webhooks.json_schema', webhookSchemaColumn, r.json_schema),
    signature: readNullableJsonColumn('webhooks.signature', webhookSignatureColumn, r.signature),
    forwardUrl: r.forward_url,
    retention: readNullableJsonColumn('webhooks.retention', webhookRetentionColumn, r.retention),
  };
}

/**
 * The webhook (with its settings and its owner's plan) when `userId` owns it; null for unknown and
 * foreign ids alike.
 */
export async function findOwnedWebhook(
  db: Kysely<Database>,
  userId: number,
  webhookId: string,
): Promise<(Webhook & WebhookSettings & { plan: Plan; userId: number }) | null> {
  const row = await db
    .selectFrom('webhooks as w')
    .innerJoin('users as u', 'u.id', 'w.user_id')
    .select([...WEBHOOK_COLUMNS, 'u.plan'])
    .where('w.webhook_id', '=', webhookId)
    .where('w.user_id', '=', userId)
    .executeTakeFirst();
  return row
    ? {
        id: Number(row.id),
        webhookId: row.webhook_id,
        createdAt: row.created_at,
        plan: row.plan,
        userId,
        ...settingsOf(row),
      }
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
