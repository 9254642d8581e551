// A webhook's captures live: which webhooks stored captures (or were deleted), heard by every API process
// over the key-value store's pub/sub, and the Server-Sent Events source a door streams them with.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { type CaptureFilter, listCapturedRequests } from '../../db/captured-requests.ts';
import { NotFoundError } from '../../lib/errors.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { CAPTURE_KEEP_PER_WEBHOOK } from '../../lib/plans.ts';
import type { SseTick } from '../sse.ts';
import { OUT_OF_ORDER_WINDOW } from '../schemas/webhooks.ts';
import { keptOf, type WebhookRequestService } from './webhook-requests.ts';
import { ownedWebhook } from './webhook-settings.ts';

/** A wait for a capture looks again this often even without a notification (one may be lost with the store's connection). */
const LOOK_AGAIN_MS = 5000;

/** The channel on which every API process hears which webhooks just stored captures (or were deleted). */
export const CAPTURES_CHANNEL = 'captures';

export function webhookLiveService({
  db,
  kv,
  views,
}: {
  db: Kysely<Database>;
  kv?: KvStore;
  /** How captures are answered (webhook-requests.ts): the stream sends them as the polling answer does. */
  views: Pick<WebhookRequestService, 'present' | 'scoped'>;
}) {
  // One subscription per process; each message wakes only the streams of that webhook.
  const watchers = new Map<string, Set<() => void>>();
  let subscribed = false;
  const wakeStreamsOf = (webhookId: string) =>
    watchers.get(webhookId)?.forEach((notify) => {
      notify();
    });
  /** Calls `notify` whenever `webhookId` stores captures or is deleted, in any API process. */
  function watch(webhookId: string, notify: () => void): () => void {
    if (!kv) throw new Error('live streams need the key-value store');
    if (!subscribed) {
      kv.subscribe(CAPTURES_CHANNEL, wakeStreamsOf);
      subscribed = true;
    }
    const set = watchers.get(webhookId) ?? new Set();
    set.add(notify);
    watchers.set(webhookId, set);
    return () => {
      set.delete(notify);
      if (set.size === 0) watchers.delete(webhookId);
    };
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
        const rows = first
          ? await listCapturedRequests(db, webhook.id, page, 0, bounds)
          : await listCapturedRequests(db, webhook.id, page, Math.max(floor, lastId - OUT_OF_ORDER_WINDOW), {
              ...bounds,
              oldestFirst: true,
              notIds: [...seen],
            });
        const fresh = rows.sort((a, b) => b.id - a.id);
        const more = !first && rows.length === page;
        if (first && rows.length === page) floor = rows.at(-1)!.id - 1;
        if (fresh.length === 0 && sent) return { events: [], done: false };
        sent = true;
        for (const r of fresh) seen.add(r.id);
        lastId = Math.max(lastId, ...fresh.map((r) => r.id));
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

    /**
     * The first capture matching `filter` stored after the call (a higher id than any stored before
     * it: no clock involved), or since `filter.since`, oldest first; null once `timeoutMs` have passed
     * or `signal` aborts. The database is read at the start, each time this webhook stores captures
     * (the notification that wakes live streams) and, in case a notification was lost, at least every
     * LOOK_AGAIN_MS; a webhook deleted meanwhile is a 404.
     */
    async waitFor(
      userId: number,
      webhookId: string,
      filter: CaptureFilter,
      timeoutMs: number,
      signal?: AbortSignal,
    ): Promise<{ request: Awaited<ReturnType<typeof views.present>>[number] | null; timed_out: boolean }> {
      const deadline = Date.now() + timeoutMs;
      let woken = () => {};
      // Subscribed before the first look, and noted during each: a capture stored meanwhile is looked for again.
      let stored = false;
      const unwatch = watch(webhookId, () => {
        stored = true;
        woken();
      });
      try {
        let afterId = 0;
        // Without `since`, nothing can match yet: the first look is the newest id, then waiting (unless a
        // capture was stored meanwhile).
        let look = true;
        if (!filter.since) {
          const { webhook, filter: kept } = await views.scoped(userId, webhookId, {});
          afterId = (await listCapturedRequests(db, webhook.id, 1, 0, kept))[0]?.id ?? 0;
          look = stored;
        }
        for (;;) {
          if (look) {
            stored = false;
            const { webhook, filter: kept } = await views.scoped(userId, webhookId, filter);
            const [first] = await listCapturedRequests(db, webhook.id, 1, afterId, { ...kept, oldestFirst: true });
            if (first) return { request: (await views.present(webhook, [first]))[0]!, timed_out: false };
          }
          look = true;
          const left = deadline - Date.now();
          if (left <= 0 || signal?.aborted) return { request: null, timed_out: true };
          if (stored) continue;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, Math.min(left, LOOK_AGAIN_MS));
            function done() {
              clearTimeout(timer);
              signal?.removeEventListener('abort', done);
              resolve();
            }
            woken = done;
            signal?.addEventListener('abort', done);
          });
        }
      } finally {
        unwatch();
      }
    },
  };
}

export type WebhookLiveService = ReturnType<typeof webhookLiveService>;
