// The captured_requests table: what a capture URL received, stored a batch at a time, and read back
// (listed, searched, counted, one by id) a webhook at a time.
import { sql, type Kysely } from 'kysely';
import {
  captureDeliveryColumn,
  captureHeadersColumn,
  captureQueryParamsColumn,
  captureSchemaCheckColumn,
  readJsonColumn,
  readNullableJsonColumn,
} from '../json-columns.ts';
import type { CaptureDelivery, Database, StoredSchemaCheck } from '../schema.ts';
import { rebuiltQuery } from '../../lib/webhooks/capture-query.ts';

/** One request as the capture URL received it. */
export interface Capture {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null;
  bodyEncoding: 'utf8' | 'base64';
  bodySize: number;
  /** The query parsed: a JSON object of its pairs (a repeated name gives a list); null without one. */
  queryParams: string | null;
  /**
   * The query as sent, without its `?` (null: no `?`; left out: not known). Read back from a capture
   * stored without it (by a process of the release before), it is rebuilt from queryParams.
   */
  queryString?: string | null;
  ipAddress: string;
  userAgent: string;
  createdAt: Date;
  /** The index of the webhook's response rule that answered it; null (or left out): none did. */
  matchedRule?: number | null;
  /** The status the capture was answered with; null (or left out): not recorded (stored before it was). */
  answeredStatus?: number | null;
}

/** A capture on its way to a webhook. */
export interface CaptureRecord extends Capture {
  webhookId: string;
}

/** A stored capture. */
export interface CapturedRequest extends Capture {
  id: number;
  delivery: CaptureDelivery | null;
  /** Its body's verdict against its webhook's JSON Schema, when checked (against the schema of its hash). */
  schemaCheck: StoredSchemaCheck | null;
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
    query_string: c.queryString ?? null,
    ip_address: c.ipAddress,
    user_agent: c.userAgent,
    created_at: c.createdAt.toISOString(),
    matched_rule: c.matchedRule ?? null,
    answered_status: c.answeredStatus ?? null,
  };
}

/**
 * The query of a stored capture: its pairs (the column's, checked) as the JSON text captures carry (the
 * API's query_params), and the query as sent. A capture stored by an API process of the release before
 * (while an upgrade goes on: migration 2026-11-28-021) comes without it: rebuilt from its pairs.
 */
function storedQuery(row: { query_params: unknown; query_string: string | null }) {
  const params = readNullableJsonColumn('captured_requests.query_params', captureQueryParamsColumn, row.query_params);
  const queryParams = params && JSON.stringify(params);
  return { queryParams, queryString: row.query_string ?? rebuiltQuery(queryParams) };
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
    headers: readJsonColumn('captured_requests.headers', captureHeadersColumn, r.headers),
    body: r.body,
    bodyEncoding: r.body_encoding,
    bodySize: r.body_size,
    ...storedQuery(r),
    ipAddress: r.ip_address,
    userAgent: r.user_agent,
    createdAt: r.created_at,
    matchedRule: r.matched_rule,
    answeredStatus: r.answered_status,
    delivery: readNullableJsonColumn('captured_requests.delivery', captureDeliveryColumn, r.delivery),
    schemaCheck: readNullableJsonColumn('captured_requests.schema_check', captureSchemaCheckColumn, r.schema_check),
  }));
}

/**
 * listCapturedRequests with the page's bodies at most `bodyBytes` as stored (its first capture whatever its
 * size): `ids` those it was to hold (`rows` lacks one deleted meanwhile), `cut` when captures were left for
 * the bound, `read` how many there were to choose from (`limit` at most).
 */
export async function listCapturedRequestsWithin(
  db: Kysely<Database>,
  webhookRef: number,
  limit: number,
  filter: CaptureFilter,
  bodyBytes: number,
  afterId = 0,
): Promise<{ rows: CapturedRequest[]; ids: number[]; cut: boolean; read: number }> {
  const sizes = await capturesWhere(db, webhookRef, afterId, filter)
    .select(['id', 'body_size', 'body_encoding'])
    .orderBy('id', filter.oldestFirst ? 'asc' : 'desc')
    .limit(limit)
    .execute();
  let bytes = 0;
  let n = 0;
  for (const s of sizes) {
    bytes += s.body_encoding === 'base64' ? Math.ceil(s.body_size / 3) * 4 : s.body_size; // stored as base64
    if (n > 0 && bytes > bodyBytes) break;
    n += 1;
  }
  const ids = sizes.slice(0, n).map((s) => Number(s.id));
  const rows = ids.length ? await listCapturedRequests(db, webhookRef, ids.length, 0, { ...filter, ids }) : [];
  return { rows, ids, cut: n < sizes.length, read: sizes.length };
}

/**
 * Every captured request of one webhook that keeps to `filter`, newest first: its id and its stored
 * schema verdict (the hash of the schema it was checked against, null when never checked).
 */
export async function listCaptureVerdicts(
  db: Kysely<Database>,
  webhookRef: number,
  filter: CaptureFilter,
): Promise<Array<{ id: number; hash: string | null; valid: boolean | null }>> {
  const rows = await capturesWhere(db, webhookRef, 0, filter)
    .select([
      'id',
      sql<string | null>`schema_check ->> 'hash'`.as('hash'),
      sql<string | null>`schema_check ->> 'valid'`.as('valid'),
    ])
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), hash: r.hash, valid: r.valid === null ? null : r.valid === 'true' }));
}

/** The id of the webhook's newest capture (0: none): a capture stored after now has a higher one. */
export async function newestCaptureId(db: Kysely<Database>, webhookRef: number): Promise<number> {
  const row = await capturesWhere(db, webhookRef, 0, {}).select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row ? Number(row.id) : 0;
}

/** The bodies of some captured requests of one webhook (those of `ids` it holds). */
export async function captureBodies(db: Kysely<Database>, webhookRef: number, ids: readonly number[]) {
  const rows = await capturesWhere(db, webhookRef, 0, { ids }).select(['id', 'body', 'body_encoding']).execute();
  return rows.map((r) => ({ id: Number(r.id), body: r.body, bodyEncoding: r.body_encoding }));
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
    // A substring, case aside, found in time linear in the body: ILIKE '%...%' costs the body's length
    // times the text's on a body of near-matches (a 200-character text over 1 MiB bodies of `aaa...`:
    // 629 s for 250 MiB on PGlite, which serves every query of the process on one thread).
    q = q.where('body_encoding', '=', 'utf8').where(sql<boolean>`strpos(lower(body), lower(${filter.text})) > 0`);
  }
  return q;
}

/** What a batch stored for one webhook (see insertCaptures). */
export interface StoredForWebhook {
  ref: number;
  added: number;
  forwarding: boolean;
  keep: number | null;
  /** With a JSON Schema set on the webhook: its owner and the captures stored, to check against it. */
  check?: { owner: number; ids: number[] };
}

/**
 * Stores a batch of captures in one statement. Captures for unknown or just-deleted webhooks are
 * dropped, not stored. Returns, per stored webhook public id, its row id, how many rows this batch
 * added to it, whether it forwards them (they are then stored with their delivery pending), how many
 * captures it keeps when it says (null: the default) and, with a JSON Schema, which captures to check.
 */
export async function insertCaptures(
  db: Kysely<Database>,
  records: readonly CaptureRecord[],
): Promise<Map<string, StoredForWebhook>> {
  const payload = JSON.stringify(records.map((r, ord) => ({ ord, webhook_id: r.webhookId, ...captureFields(r) })));
  // See migrations 2026-11-22-006, 2026-11-23-011 and 2026-11-28-020: one call, its plan kept by the session.
  const found = await sql<{
    webhook_id: string;
    webhook_ref: string | number;
    forwarding: boolean;
    keep: number | null;
    owner_id: string | number;
    checked: Array<string | number> | null;
  }>`
    select webhook_id, webhook_ref, forwarding, keep, owner_id, checked from store_captures_v2(${payload}::json)
  `.execute(db);
  const stored = new Map(
    found.rows.map((r): [string, StoredForWebhook] => [
      r.webhook_id,
      {
        ref: Number(r.webhook_ref),
        added: 0,
        forwarding: r.forwarding,
        keep: r.keep === null ? null : Number(r.keep),
        ...(r.checked ? { check: { owner: Number(r.owner_id), ids: r.checked.map(Number) } } : {}),
      },
    ]),
  );
  for (const r of records) {
    const entry = stored.get(r.webhookId);
    if (entry) entry.added += 1;
  }
  return stored;
}
