// A webhook's captures as its owner reads them, for every door: the listing and the search (paged by an
// opaque cursor), kept to what the webhook keeps, each capture with its signature's check (an HMAC a row).
import type { Kysely } from 'kysely';
import type { Database, JsonSchema, WebhookSignature } from '../../../db/schema.ts';
import { type SchemaChecks, schemaChecks } from './webhook-schema-checks.ts';
import { keptFilter, keptOf } from '../../../db/webhooks/capture-retention.ts';
import {
  captureFields,
  listCaptureVerdicts,
  countCapturedRequests,
  listCapturedRequests,
  listCapturedRequestsWithin,
  type CapturedRequest,
  type CaptureFilter,
} from '../../../db/webhooks/captured-requests.ts';
import type { SecretBox } from '../../../lib/auth/secret-box.ts';
import { type SignatureScheme, signatureChecker } from '../../../lib/webhooks/webhook-signatures.ts';
import { InvalidInputError, NotFoundError } from '../../../lib/errors.ts';
import { CAPTURE_KEEP_PER_WEBHOOK, CAPTURE_PAGE_BODY_BYTES } from '../../../lib/plans.ts';
import { ownedWebhook } from './webhook-settings.ts';

export function webhookRequestService({
  db,
  box,
  checks = schemaChecks({ db }),
}: {
  db: Kysely<Database>;
  box?: SecretBox;
  /** The JSON Schema checks of captures (their own checker threads unless given). */
  checks?: SchemaChecks;
}) {
  /**
   * The captures as answered, each with its signature's check and its schema's verdict when the
   * webhook has them (kept verdicts; a capture with none for the schema is checked, bounded).
   */
  async function present(
    webhook: { userId: number; signature: WebhookSignature | null; schema: JsonSchema | null },
    rows: CapturedRequest[],
  ) {
    const setting = rows.length && box ? webhook.signature : null;
    const [secret, verdicts] = await Promise.all([
      setting ? box!.open(setting.sealed_secret) : '',
      rows.length && webhook.schema ? checks.verdicts(webhook.userId, webhook.schema, rows) : null,
    ]);
    // One checker for the page: its key is made once (lib/webhooks/webhook-signatures.ts).
    const check = setting && signatureChecker(setting.scheme as SignatureScheme, secret, setting.header);
    return rows.map((r) => ({
      id: r.id,
      ...captureFields(r),
      ...(r.delivery ? { delivery: r.delivery } : {}),
      ...(verdicts ? { schema: verdicts.get(r.id)! } : {}),
      ...(check
        ? {
            signature: check({
              headers: r.headers,
              body:
                r.body === null
                  ? Buffer.alloc(0)
                  : Buffer.from(r.body, r.bodyEncoding === 'base64' ? 'base64' : 'utf8'),
              capturedAt: r.createdAt,
            }),
          }
        : {}),
    }));
  }
  /**
   * The captures that keep to `filter` and whose body is `wanted` against the webhook's schema (by
   * the verdicts kept; those with none checked, bounded), a page read after it; with every match counted.
   */
  async function bySchema(
    webhook: { id: number; userId: number; schema: JsonSchema | null; signature: WebhookSignature | null },
    filter: CaptureFilter,
    wanted: 'valid' | 'invalid',
    limit: number,
    before: number | undefined,
  ): Promise<[{ rows: CapturedRequest[]; ids: number[]; cut: boolean; read: number }, number]> {
    if (!webhook.schema)
      throw new InvalidInputError(
        'schema: this webhook has no JSON Schema to check captures against (set one with my-webhook-update)',
        'schema',
      );
    const listed = await listCaptureVerdicts(db, webhook.id, filter);
    const valid = await checks.validity(webhook.userId, webhook.id, webhook.schema, listed);
    // A capture without a verdict (not checked in time, past its budget, deleted meanwhile) is no match.
    const matching = listed.filter((r) => valid.get(r.id) === (wanted === 'valid')).map((r) => r.id);
    const page = matching.filter((id) => before === undefined || id < before).slice(0, limit);
    const chosen = page.length
      ? await listCapturedRequestsWithin(db, webhook.id, page.length, { ids: page }, CAPTURE_PAGE_BODY_BYTES)
      : { rows: [], ids: [], cut: false };
    // As many to choose from as matched, whatever was deleted since the verdicts were read.
    return [{ ...chosen, read: page.length }, matching.length];
  }
  async function scoped(userId: number, webhookId: string, filter: CaptureFilter) {
    const webhook = await ownedWebhook(db, userId, webhookId);
    return { webhook, filter: await keptFilter(db, webhook, filter) };
  }
  return {
    /** The captures as every door answers them (with their signature checks): the export's too. */
    present,

    /** Captures just stored for webhooks with a JSON Schema (the capture writer's `onToCheck`): checked now. */
    checkStored: checks.afterStored,

    /** The caller's webhook (404 otherwise) and a filter narrowed to what it keeps (a search's, an export's). */
    scoped,

    /**
     * The captured requests, newest first, and no more bodies than a page of a search holds; with
     * `afterId`, only those captured after that one.
     */
    async requests(userId: number, webhookId: string, afterId = 0) {
      const webhook = await ownedWebhook(db, userId, webhookId);
      const kept = await keptOf(db, webhook);
      const requests = afterId
        ? await listCapturedRequests(db, webhook.id, CAPTURE_KEEP_PER_WEBHOOK, afterId, kept)
        : (await listCapturedRequestsWithin(db, webhook.id, CAPTURE_KEEP_PER_WEBHOOK, kept, CAPTURE_PAGE_BODY_BYTES))
            .rows;
      return { total: requests.length, requests: await present(webhook, requests) };
    },

    /** One capture the webhook keeps, as every door shows it (404 when it keeps no such capture). */
    async captured(userId: number, webhookId: string, id: number) {
      const webhook = await ownedWebhook(db, userId, webhookId);
      const [row] = await listCapturedRequests(db, webhook.id, 1, 0, { ...(await keptOf(db, webhook)), ids: [id] });
      if (!row) throw new NotFoundError(`No capture ${id} among those webhook ${webhookId} keeps`);
      return (await present(webhook, [row]))[0]!;
    },

    /**
     * The captures that match every filter given, newest first, `limit` at a time and bodies of at most
     * CAPTURE_PAGE_BODY_BYTES a page: `next_cursor` (opaque) asks for the next page, absent on the last.
     */
    async search(
      userId: number,
      webhookId: string,
      query: { filter: CaptureFilter; limit: number; cursor?: string; schema?: 'valid' | 'invalid' },
    ) {
      const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (before === null)
        throw new InvalidInputError(
          'cursor: is not a cursor this endpoint gave (pass next_cursor as it came)',
          'cursor',
        );
      const { webhook, filter: kept } = await scoped(userId, webhookId, query.filter);
      const filter = { ...kept, ...(before !== undefined ? { beforeId: before } : {}) };
      const limit = Math.min(query.limit, CAPTURE_KEEP_PER_WEBHOOK);
      const [{ rows, ids, cut, read }, total] = query.schema
        ? await bySchema(webhook, kept, query.schema, limit + 1, before)
        : await Promise.all([
            listCapturedRequestsWithin(db, webhook.id, limit + 1, filter, CAPTURE_PAGE_BODY_BYTES),
            countCapturedRequests(db, webhook.id, kept),
          ]);
      // The page: the first `limit` captures it was to hold (without one deleted since their sizes were
      // read); the next goes on after the last of them, when there were more or the bodies' bound cut it.
      const meant = ids.slice(0, query.limit);
      const onPage = new Set(meant);
      const page = rows.filter((r) => onPage.has(r.id));
      const after = cut || read > query.limit ? meant.at(-1) : undefined;
      // total: every match, on every page; count: this page's.
      return {
        total,
        count: page.length,
        requests: await present(webhook, page),
        ...(after !== undefined ? { next_cursor: encodeCursor(after) } : {}),
      };
    },
  };
}

export type WebhookRequestService = ReturnType<typeof webhookRequestService>;

/** A page's end as the client carries it: opaque, so the paging can change without breaking clients. */
export const encodeCursor = (id: number) => Buffer.from(`c${id}`).toString('base64url');
function decodeCursor(cursor: string): number | null {
  const m = /^c(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  return m ? Number(m[1]) : null;
}
