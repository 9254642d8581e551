// A webhook's captures live: which webhooks stored captures (or were deleted), heard by every API process
// over the key-value store's pub/sub, and the Server-Sent Events source a door streams them with.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import {
  type CaptureFilter,
  listCapturedRequestsWithin,
  newestCaptureId,
} from '../../../db/webhooks/captured-requests.ts';
import { firstKeptCapture, keptOf } from '../../../db/webhooks/capture-retention.ts';
import { CAPTURES_CHANNEL, captureWatcher, waitForCapture } from '../../../domain/webhooks/capture-wait.ts';
import { NotFoundError } from '../../../lib/errors.ts';
import type { KvStore } from '../../../lib/kv/index.ts';
import { CAPTURE_KEEP_PER_WEBHOOK, CAPTURE_PAGE_BODY_BYTES } from '../../../lib/plans.ts';
import type { SseTick } from '../../sse.ts';
import { OUT_OF_ORDER_WINDOW } from '../../../contract/webhooks/webhooks.ts';
import type { WebhookRequestService } from './webhook-requests.ts';
import { ownedWebhook } from './webhook-settings.ts';

export function webhookLiveService({
  db,
  kv,
  views,
}: {
  db: Kysely<Database>;
  kv?: KvStore;
  /** How captures are answered (webhook-requests.ts): the stream sends them as the polling answer does. */
  views: Pick<WebhookRequestService, 'present'>;
}) {
  const watcher = kv ? captureWatcher(kv) : null;
  /** Calls `notify` whenever `webhookId` stores captures or is deleted, in any API process. */
  function watch(webhookId: string, notify: () => void): () => void {
    if (!watcher) throw new Error('live streams need the key-value store');
    return watcher(webhookId, notify);
  }

  /**
   * Where a wait that starts now begins: the caller's webhook (404 otherwise) and the id beyond which
   * a capture counts (its newest now; 0 with `since`, whose captures already there count).
   */
  async function waitStart(userId: number, webhookId: string, since: Date | undefined) {
    const webhook = await ownedWebhook(db, userId, webhookId);
    return { webhook, afterId: since ? 0 : await newestCaptureId(db, webhook.id) };
  }

  return {
    watch,

    /** Tells every process's streams that these webhooks changed. */
    async changed(webhookIds: Iterable<string>): Promise<void> {
      if (kv) await Promise.all([...webhookIds].map((id) => kv.publish(CAPTURES_CHANNEL, id)));
    },

    /**
     * A Server-Sent Events source (api/sse.ts) of the webhook's captures: first everything kept (the
     * polling answer), then each batch of new ones; `end` when the webhook is deleted. Only captures
     * after `after` are sent (a reconnecting client's Last-Event-ID: each batch's event id is the
     * highest capture id sent so far). New captures go oldest first, a page at a time, so a client
     * resuming after more than a page of them gets every one; each event lists its captures newest
     * first, as the polling answer does.
     */
    requestsStream(userId: number, webhookId: string, after = 0): () => Promise<SseTick> {
      // Batches commit out of order (several at once, several processes): a row with a lower id can
      // appear after a higher one was sent. So each look also goes back OUT_OF_ORDER_WINDOW ids (never
      // before `floor`) and skips the ids already sent. The first look of a new stream sends the newest
      // page only: what is older than it is not news, and `floor` rises to just below it.
      let floor = after;
      let lastId = after;
      let sent = false;
      const seen = new Set<number>();
      return async () => {
        let webhook: Awaited<ReturnType<typeof ownedWebhook>>;
        try {
          webhook = await ownedWebhook(db, userId, webhookId);
        } catch (err) {
          if (err instanceof NotFoundError)
            return {
              events: [
                { event: 'end', data: { success: true, webhook_id: webhookId, message: 'The webhook was deleted' } },
              ],
              done: true,
            };
          throw err;
        }
        const bounds = await keptOf(db, webhook);
        const page = CAPTURE_KEEP_PER_WEBHOOK;
        // (With a signature check set, each look checks its captures: at most 2 pages of HMACs of their bodies.)
        const first = !sent && after === 0;
        // One query: a new stream's newest page; then, oldest first, every capture after the window's
        // start that was not sent: late commits below the newest sent (however many were sent in a busy
        // window) and new ones, a page at a time.
        // A look's bodies come to at most CAPTURE_PAGE_BODY_BYTES (one capture whatever its size), as a page of
        // the polling answer's: what the bound leaves waits for the next look, which follows at once.
        const { rows, ids, cut, read } = first
          ? await listCapturedRequestsWithin(db, webhook.id, page, bounds, CAPTURE_PAGE_BODY_BYTES)
          : await listCapturedRequestsWithin(
              db,
              webhook.id,
              page,
              { ...bounds, oldestFirst: true, notIds: [...seen] },
              CAPTURE_PAGE_BODY_BYTES,
              Math.max(floor, lastId - OUT_OF_ORDER_WINDOW),
            );
        const fresh = rows.sort((a, b) => b.id - a.id);
        const full = cut || read === page;
        const more = !first && full;
        // By the ids the look was to hold: a capture deleted between its two reads (a trim) moves them too.
        if (first && full && ids.length) floor = Math.min(...ids) - 1;
        for (const id of ids) seen.add(id);
        lastId = Math.max(lastId, ...ids);
        if (fresh.length === 0 && sent) return { events: [], done: false, more };
        sent = true;
        for (const id of seen) if (id <= lastId - OUT_OF_ORDER_WINDOW) seen.delete(id);
        const id = lastId > 0 ? String(lastId) : undefined;
        const requests = await views.present(webhook, fresh);
        return {
          events: [
            {
              event: 'requests',
              id,
              data: { success: true, webhook_id: webhookId, data: { total: fresh.length, requests } },
            },
          ],
          done: false,
          more,
        };
      };
    },

    waitStart,

    /**
     * The first capture matching `filter` stored after the call (a higher id than any stored before
     * it: no clock involved), or since `filter.since`, oldest first; null once `timeoutMs` have passed
     * or `signal` aborts. Looks as domain/webhooks/capture-wait.ts says (woken by the notification that wakes
     * live streams); a webhook deleted meanwhile is a 404.
     */
    async waitFor(
      userId: number,
      webhookId: string,
      filter: CaptureFilter,
      timeoutMs: number,
      signal?: AbortSignal,
    ): Promise<{ request: Awaited<ReturnType<typeof views.present>>[number] | null; timed_out: boolean }> {
      const deadline = Date.now() + timeoutMs;
      const { afterId } = await waitStart(userId, webhookId, filter.since);
      const found = await waitForCapture({
        watch,
        webhookId,
        deadline,
        signal,
        look: async () => {
          const webhook = await ownedWebhook(db, userId, webhookId);
          const first = await firstKeptCapture(db, webhook, filter, afterId);
          return first && (await views.present(webhook, [first]))[0]!;
        },
      });
      return found ? { request: found, timed_out: false } : { request: null, timed_out: true };
    },
  };
}

export type WebhookLiveService = ReturnType<typeof webhookLiveService>;
