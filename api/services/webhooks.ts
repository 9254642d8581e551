// Webhooks as a user sees them, for every door (REST, MCP, dashboard): one owner check, one shape.
// Unknown and foreign ids are the same 404.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { failPendingDeliveries, raiseDeliveryFloors } from '../../db/capture-deliveries.ts';
import { keptBounds } from '../../db/capture-retention.ts';
import {
  captureFields,
  countForwarding,
  type CapturedRequest,
  type CaptureFilter,
  createWebhook,
  deleteOwnedWebhook,
  findOwnedWebhook,
  countCapturedRequests,
  listCapturedRequests,
  listWebhooks,
  setWebhookSettings,
  type WebhookSettings,
} from '../../db/webhooks.ts';
import type { WebhookResponse, WebhookRetention, WebhookSignature } from '../../db/schema.ts';
import { checkTarget } from '../../lib/net/target-guard.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { checkSignature, type SignatureScheme } from '../../lib/webhook-signatures.ts';
import { InvalidInputError, NotFoundError, PlanLimitError } from '../../lib/errors.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import {
  CAPTURE_KEEP_PER_WEBHOOK,
  defaultRetention,
  effectiveRetention,
  PLAN_LIMITS,
  RETENTION_CAPS,
  type Plan,
} from '../../lib/plans.ts';
import type { SseTick } from '../sse.ts';
import { OUT_OF_ORDER_WINDOW } from '../schemas/webhooks.ts';

/** The channel on which every API process hears which webhooks just stored captures (or were deleted). */
export const CAPTURES_CHANNEL = 'captures';
/** The channel on which every API process hears which webhook's settings changed (its cached answer goes). */
export const WEBHOOK_SETTINGS_CHANNEL = 'webhook-settings';

/** A signature check as the owner gives it: the secret in the clear, only until it is sealed. */
export interface SignatureSetting {
  scheme: SignatureScheme;
  secret: string;
  header: string;
}

/** What an owner sets on a webhook, as the doors take it (undefined: unchanged, null: the default / none). */
export interface WebhookSettingsInput {
  response?: WebhookResponse | null;
  signature?: SignatureSetting | null;
  forward_url?: string | null;
  /** Either left out: the plan's default. */
  retention?: Partial<WebhookRetention> | null;
}

export function webhookService(
  db: Kysely<Database>,
  baseUrl: string,
  kv?: KvStore,
  box?: SecretBox,
  allow: readonly string[] = [],
  settingsChanged: (webhookId: string) => void = () => {},
) {
  const urlOf = (webhookId: string) => `${baseUrl}/webhook/${webhookId}`;
  const shown = (s: WebhookSignature | null) => (s ? { scheme: s.scheme, header: s.header } : null);
  /** A webhook's settings as every door answers them (never the secret; the retention in force). */
  const shownSettings = (w: WebhookSettings, plan: Plan) => ({
    response: w.response,
    signature: shown(w.signature),
    forward_url: w.forwardUrl,
    retention: effectiveRetention(plan, w.retention),
  });
  /** The settings checked against the plan and the SSRF guard, the secret sealed: ready to store. */
  async function stored(
    account: { userId: number; plan: Plan },
    input: WebhookSettingsInput,
    webhookId: string | null = null,
  ): Promise<Partial<WebhookSettings>> {
    const { plan } = account;
    const { forward_url: forwardUrl } = input;
    // Fields left out (or sent empty) are the plan's defaults; the plan bounds what is asked.
    const asked = input.retention
      ? Object.fromEntries(Object.entries(input.retention).filter(([, v]) => v !== undefined))
      : null;
    const retention =
      input.retention === undefined ? undefined : asked ? { ...defaultRetention(plan), ...asked } : null;
    if (retention) {
      const { capturesKept, captureDays } = PLAN_LIMITS[plan];
      if (retention.max_requests > capturesKept)
        throw new PlanLimitError(`retention.max_requests: at most ${capturesKept} on the ${plan} plan`);
      if (retention.max_age_days > captureDays)
        throw new PlanLimitError(`retention.max_age_days: at most ${captureDays} on the ${plan} plan`);
    }
    if (forwardUrl) {
      // Forwarding to a capture URL of this service would pass captures around in a circle.
      // Host and port (a service on localhost may well forward to an app on another port of it); a
      // trailing dot is the same host. Other names for it are stopped by the mark forwards carry.
      const where = (u: string) => {
        const url = new URL(u);
        return `${url.hostname.replace(/\.$/, '').toLowerCase()}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
      };
      if (where(forwardUrl) === where(baseUrl))
        throw new InvalidInputError(
          'forward_url: must not be this service (forwarding to a capture URL would go round in circles)',
          'forward_url',
        );
      await checkTarget(forwardUrl, { allow, field: 'forward_url' });
      const most = PLAN_LIMITS[plan].forwardingWebhooks;
      if ((await countForwarding(db, account.userId, webhookId)) >= most)
        throw new PlanLimitError(
          `forward_url: at most ${most} of your webhooks forward at once on the ${plan} plan (stop one with forward_url null)`,
        );
    }
    return { response: input.response, signature: await sealed(input.signature), forwardUrl, retention };
  }
  async function sealed(s: SignatureSetting | null | undefined): Promise<WebhookSignature | null | undefined> {
    if (!s) return s;
    if (!box) throw new Error('signature checks need the payload key');
    return { scheme: s.scheme, header: s.header, sealed_secret: await box.seal(s.secret) };
  }
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
  async function owned(userId: number, webhookId: string) {
    const webhook = await findOwnedWebhook(db, userId, webhookId);
    if (!webhook) throw new NotFoundError(`No webhook ${webhookId} among yours`);
    return webhook;
  }
  /** The filter that keeps a listing to what the webhook keeps (what waits for deletion is never shown). */
  async function kept(webhook: {
    id: number;
    plan: Plan;
    retention: WebhookRetention | null;
  }): Promise<{ minId: number; since: Date }> {
    return keptBounds(db, webhook.id, effectiveRetention(webhook.plan, webhook.retention));
  }
  async function scoped(userId: number, webhookId: string, filter: CaptureFilter) {
    const webhook = await owned(userId, webhookId);
    const bounds = await kept(webhook);
    const since = filter.since && filter.since > bounds.since ? filter.since : bounds.since;
    return { webhook, filter: { ...filter, ...bounds, since } };
  }
  // One subscription per process; each message wakes only the streams of that webhook.
  const watchers = new Map<string, Set<() => void>>();
  let unsubscribe: (() => void) | undefined;
  const wakeStreamsOf = (webhookId: string) => watchers.get(webhookId)?.forEach((notify) => notify());
  return {
    /** Calls `notify` whenever `webhookId` stores captures or is deleted, in any API process. */
    watch(webhookId: string, notify: () => void): () => void {
      if (!kv) throw new Error('live streams need the key-value store');
      unsubscribe ??= kv.subscribe(CAPTURES_CHANNEL, wakeStreamsOf);
      const set = watchers.get(webhookId) ?? new Set();
      set.add(notify);
      watchers.set(webhookId, set);
      return () => {
        set.delete(notify);
        if (set.size === 0) watchers.delete(webhookId);
      };
    },

    /** The captures as every door answers them (with their signature checks): the export's too. */
    present,

    /** The caller's webhook (404 otherwise) and a filter narrowed to what it keeps (a search's, an export's). */
    scoped,

    /** Tells every process's streams that these webhooks changed. */
    async changed(webhookIds: Iterable<string>): Promise<void> {
      if (kv) await Promise.all([...webhookIds].map((id) => kv.publish(CAPTURES_CHANNEL, id)));
    },

    /** A new webhook, or 403 when the account owns as many as its plan allows. */
    async create(account: { userId: number; plan: Plan }, settings: WebhookSettingsInput = {}) {
      const max = PLAN_LIMITS[account.plan].webhooks;
      const given = await stored(account, settings);
      const webhook = await createWebhook(db, account.userId, max, given);
      if (!webhook)
        throw new PlanLimitError(`You own ${max} webhooks, the most the ${account.plan} plan allows: delete one first`);
      return {
        webhook_id: webhook.webhookId,
        webhook_url: urlOf(webhook.webhookId),
        created_at: webhook.createdAt.toISOString(),
        ...shownSettings(
          {
            response: given.response ?? null,
            signature: given.signature ?? null,
            forwardUrl: given.forwardUrl ?? null,
            retention: given.retention ?? null,
          },
          account.plan,
        ),
        message: 'Webhook created: send any HTTP request to webhook_url and read it back from my-webhook-requests',
      };
    },

    /**
     * Sets what the webhook answers its senders, how its captures' signatures are checked, where they
     * are forwarded and how long they are kept (undefined: unchanged, null: the default / none); every
     * process drops its cached answer at once. Forwarding applies to captures from then on.
     */
    async update(account: { userId: number; plan: Plan }, webhookId: string, settings: WebhookSettingsInput) {
      const given = await stored(account, settings, webhookId);
      if (!(await setWebhookSettings(db, account.userId, webhookId, given)))
        throw new NotFoundError(`No webhook ${webhookId} among yours`);
      if (settings.response !== undefined) {
        settingsChanged(webhookId); // this process at once: the next capture here gets the new answer
        if (kv) await kv.publish(WEBHOOK_SETTINGS_CHANNEL, webhookId);
      }
      const { response, signature, forwardUrl, retention } = given;
      const said = [
        response === undefined
          ? ''
          : response
            ? `captures are now answered with ${response.status} after ${response.delay_ms} ms`
            : 'captures are now answered with the default JSON',
        signature === undefined
          ? ''
          : signature
            ? `signatures are checked as ${signature.scheme}`
            : 'signatures are not checked',
        forwardUrl === undefined
          ? ''
          : forwardUrl
            ? `new captures are forwarded to ${forwardUrl}`
            : 'captures are not forwarded',
        retention === undefined
          ? ''
          : `it keeps ${retention ? `${retention.max_requests} captures for ${retention.max_age_days} days` : 'what the plan keeps by default'}`,
      ].filter(Boolean);
      const after = await findOwnedWebhook(db, account.userId, webhookId);
      if (forwardUrl === null)
        await failPendingDeliveries(db, after!.id, 'forwarding was turned off before this capture was delivered');
      // What was captured before is not forwarded: the forwarder's walk starts past it.
      if (forwardUrl) await raiseDeliveryFloors(db, [after!.id]);
      return { webhook_id: webhookId, ...shownSettings(after!, account.plan), message: `Updated: ${said.join('; ')}` };
    },

    /** One of the caller's webhooks with its settings (404 otherwise). */
    async one(account: { userId: number; plan: Plan }, webhookId: string) {
      const w = await owned(account.userId, webhookId);
      return {
        webhook_id: w.webhookId,
        webhook_url: urlOf(w.webhookId),
        created_at: w.createdAt.toISOString(),
        ...shownSettings(w, account.plan),
      };
    },

    async list(account: { userId: number; plan: Plan }) {
      const webhooks = await listWebhooks(
        db,
        account.userId,
        defaultRetention(account.plan),
        RETENTION_CAPS[account.plan],
      );
      return {
        total: webhooks.length,
        webhooks: webhooks.map((w) => ({
          id: w.id,
          webhook_id: w.webhookId,
          webhook_url: urlOf(w.webhookId),
          request_count: w.requestCount,
          created_at: w.createdAt.toISOString(),
          ...shownSettings(w, account.plan),
        })),
      };
    },

    /** The captured requests, newest first; with `afterId`, only those captured after that one. */
    async requests(userId: number, webhookId: string, afterId = 0) {
      const webhook = await owned(userId, webhookId);
      const requests = await listCapturedRequests(
        db,
        webhook.id,
        CAPTURE_KEEP_PER_WEBHOOK,
        afterId,
        await kept(webhook),
      );
      return { total: requests.length, requests: await present(webhook, requests) };
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
        let webhook;
        try {
          webhook = await owned(userId, webhookId);
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
        const bounds = await kept(webhook);
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
        const requests = await present(webhook, fresh);
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

    async remove(userId: number, webhookId: string) {
      if (!(await deleteOwnedWebhook(db, userId, webhookId)))
        throw new NotFoundError(`No webhook ${webhookId} among yours`);
      await this.changed([webhookId]).catch(() => {}); // its open streams end (or see it at their next look)
      return { message: 'Webhook and its captured requests deleted', webhook_id: webhookId };
    },
  };
}

export type WebhookService = ReturnType<typeof webhookService>;
/** One captured request as every door shows it. */
export type CapturedView = Awaited<ReturnType<WebhookService['requests']>>['requests'][number];

/** A page's end as the client carries it: opaque, so the paging can change without breaking clients. */
export const encodeCursor = (id: number) => Buffer.from(`c${id}`).toString('base64url');
function decodeCursor(cursor: string): number | null {
  const m = /^c(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  return m ? Number(m[1]) : null;
}
