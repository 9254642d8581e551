// A webhook's captures as its owner reads them, for every door: the listing and the search (paged by an
// opaque cursor), kept to what the webhook keeps, each capture with its signature's check (an HMAC a row).
import type { Kysely } from 'kysely';
import type { Database, WebhookRetention, WebhookSignature } from '../../db/schema.ts';
import { keptBounds } from '../../db/capture-retention.ts';
import {
  captureFields,
  countCapturedRequests,
  listCapturedRequests,
  type CapturedRequest,
  type CaptureFilter,
} from '../../db/captured-requests.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { checkSignature, type SignatureScheme } from '../../lib/webhook-signatures.ts';
import { InvalidInputError, NotFoundError } from '../../lib/errors.ts';
import { DEFAULT_IGNORED_HEADERS, diffCaptures } from '../../lib/capture-diff.ts';
import { CAPTURE_KEEP_PER_WEBHOOK, effectiveRetention, type Plan } from '../../lib/plans.ts';
import { ownedWebhook } from './webhook-settings.ts';

/** The filter that keeps a listing to what the webhook keeps (what waits for deletion is never shown). */
export async function keptOf(
  db: Kysely<Database>,
  webhook: { id: number; plan: Plan; retention: WebhookRetention | null },
): Promise<{ minId: number; since: Date }> {
  return keptBounds(db, webhook.id, effectiveRetention(webhook.plan, webhook.retention));
}

export function webhookRequestService({ db, box }: { db: Kysely<Database>; box?: SecretBox }) {
  /** The captures as answered, each with its signature's check when the webhook has one. */
  async function present(webhook: { signature: WebhookSignature | null }, rows: CapturedRequest[]) {
    const setting = rows.length && box ? webhook.signature : null;
    const secret = setting ? await box!.open(setting.sealed_secret) : '';
    return rows.map((r) => ({
      id: r.id,
      ...captureFields(r),
      ...(r.delivery ? { delivery: r.delivery } : {}),
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
  async function scoped(userId: number, webhookId: string, filter: CaptureFilter) {
    const webhook = await ownedWebhook(db, userId, webhookId);
    const bounds = await keptOf(db, webhook);
    const since = filter.since && filter.since > bounds.since ? filter.since : bounds.since;
    return { webhook, filter: { ...filter, ...bounds, since } };
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
    async search(userId: number, webhookId: string, query: { filter: CaptureFilter; limit: number; cursor?: string }) {
      const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (before === null)
        throw new InvalidInputError(
          'cursor: is not a cursor this endpoint gave (pass next_cursor as it came)',
          'cursor',
        );
      const { webhook, filter: kept } = await scoped(userId, webhookId, query.filter);
      const filter = { ...kept, ...(before !== undefined ? { beforeId: before } : {}) };
      const [rows, total] = await Promise.all([
        listCapturedRequests(db, webhook.id, Math.min(query.limit, CAPTURE_KEEP_PER_WEBHOOK) + 1, 0, filter),
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
