// A webhook's captures as its owner reads them, for every door: the listing and the search (paged by an
// opaque cursor), kept to what the webhook keeps, each capture with its signature's check (an HMAC a row).
import type { Kysely } from 'kysely';
import type { Database, JsonSchema, WebhookSignature } from '../../db/schema.ts';
import { schemaChecks } from './webhook-schema-checks.ts';
import { keptFilter, keptOf } from '../../db/capture-retention.ts';
import {
  captureBodies,
  captureFields,
  listCaptureIds,
  countCapturedRequests,
  listCapturedRequests,
  type CapturedRequest,
  type CaptureFilter,
} from '../../db/captured-requests.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { checkSignature, type SignatureScheme } from '../../lib/webhook-signatures.ts';
import { InvalidInputError, NotFoundError } from '../../lib/errors.ts';
import { DEFAULT_IGNORED_HEADERS, diffCaptures } from '../../lib/capture-diff.ts';
import { CAPTURE_KEEP_PER_WEBHOOK } from '../../lib/plans.ts';
import { ownedWebhook } from './webhook-settings.ts';

/** Bodies read at a time to check against a schema. */
const SCHEMA_CHECK_BATCH = 100;

export function webhookRequestService({ db, box }: { db: Kysely<Database>; box?: SecretBox }) {
  const checks = schemaChecks();
  /** The captures as answered, each with its signature's check and its schema's when the webhook has them. */
  async function present(
    webhook: { signature: WebhookSignature | null; schema: JsonSchema | null },
    rows: CapturedRequest[],
  ) {
    const setting = rows.length && box ? webhook.signature : null;
    const secret = setting ? await box!.open(setting.sealed_secret) : '';
    const schema = rows.length && webhook.schema ? checks.against(webhook.schema) : null;
    return rows.map((r) => ({
      id: r.id,
      ...captureFields(r),
      ...(r.delivery ? { delivery: r.delivery } : {}),
      ...(schema ? { schema: schema.verdict(r) } : {}),
      ...(setting
        ? {
            signature: checkSignature(setting.scheme as SignatureScheme, secret, setting.header, {
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
   * The captures that keep to `filter` and whose body is `wanted` against the webhook's schema: each
   * kept body is checked once (verdicts are kept), a page read after it; with every match counted.
   */
  async function bySchema(
    webhook: { id: number; schema: JsonSchema | null; signature: WebhookSignature | null },
    filter: CaptureFilter,
    wanted: 'valid' | 'invalid',
    limit: number,
    before: number | undefined,
  ): Promise<[CapturedRequest[], number]> {
    if (!webhook.schema)
      throw new InvalidInputError(
        'schema: this webhook has no JSON Schema to check captures against (set one with my-webhook-update)',
        'schema',
      );
    const schema = checks.against(webhook.schema);
    const ids = await listCaptureIds(db, webhook.id, filter);
    // This search's verdicts, kept here: the process's cache may start again while it reads.
    const valid = new Map<number, boolean>();
    const unchecked: number[] = [];
    for (const id of ids) {
      const known = schema.known(id);
      if (known) valid.set(id, known.valid);
      else unchecked.push(id);
    }
    for (let i = 0; i < unchecked.length; i += SCHEMA_CHECK_BATCH)
      for (const body of await captureBodies(db, webhook.id, unchecked.slice(i, i + SCHEMA_CHECK_BATCH)))
        valid.set(body.id, schema.verdict(body).valid);
    // A capture deleted between the two reads has no verdict: it is no match.
    const matching = ids.filter((id) => valid.get(id) === (wanted === 'valid'));
    const page = matching.filter((id) => before === undefined || id < before).slice(0, limit);
    const rows = page.length ? await listCapturedRequests(db, webhook.id, page.length, 0, { ids: page }) : [];
    return [rows, matching.length];
  }
  async function scoped(userId: number, webhookId: string, filter: CaptureFilter) {
    const webhook = await ownedWebhook(db, userId, webhookId);
    return { webhook, filter: await keptFilter(db, webhook, filter) };
  }
  return {
    /** The captures as every door answers them (with their signature checks): the export's too. */
    present,

    /** The caller's webhook (404 otherwise) and a filter narrowed to what it keeps (a search's, an export's). */
    scoped,

    /** The captured requests, newest first; with `afterId`, only those captured after that one. */
    async requests(userId: number, webhookId: string, afterId = 0) {
      const webhook = await ownedWebhook(db, userId, webhookId);
      const requests = await listCapturedRequests(
        db,
        webhook.id,
        CAPTURE_KEEP_PER_WEBHOOK,
        afterId,
        await keptOf(db, webhook),
      );
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
     * What changed from capture `a` to capture `b` of the caller's webhook (both among those it
     * keeps, else 404); `ignore`: header names to leave out (undefined: the usual ones).
     */
    async diff(userId: number, webhookId: string, a: number, b: number, ignore?: readonly string[]) {
      const webhook = await ownedWebhook(db, userId, webhookId);
      const rows = await listCapturedRequests(db, webhook.id, 2, 0, { ...(await keptOf(db, webhook)), ids: [a, b] });
      const side = (id: number) => {
        const row = rows.find((r) => r.id === id);
        if (!row) throw new NotFoundError(`No capture ${id} among those webhook ${webhookId} keeps`);
        return row;
      };
      const [x, y] = [side(a), side(b)];
      return {
        a: { id: x.id, created_at: x.createdAt.toISOString() },
        b: { id: y.id, created_at: y.createdAt.toISOString() },
        ...diffCaptures(x, y, ignore ?? DEFAULT_IGNORED_HEADERS),
      };
    },

    /**
     * The captures that match every filter given, newest first, `limit` at a time: `next_cursor`
     * (opaque) asks for the next page, absent on the last.
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
      const [rows, total] = query.schema
        ? await bySchema(webhook, kept, query.schema, limit + 1, before)
        : await Promise.all([
            listCapturedRequests(db, webhook.id, limit + 1, 0, filter),
            countCapturedRequests(db, webhook.id, kept),
          ]);
      const page = rows.slice(0, query.limit);
      const more = rows.length > query.limit;
      // total: every match, on every page; count: this page's.
      return {
        total,
        count: page.length,
        requests: await present(webhook, page),
        ...(more ? { next_cursor: encodeCursor(page.at(-1)!.id) } : {}),
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
