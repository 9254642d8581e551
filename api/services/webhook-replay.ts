// Sends a capture again, after a fix, to a URL the user names: its method, headers (without the
// hop-by-hop ones and those that frame the request, which the client sets) and body byte for byte;
// the URL is the target plus the path the sender called below the webhook and its query. Through the
// SSRF guard, redirects not followed (their answer is the answer), bounded in time and size.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { findCapture, findOwnedWebhook } from '../../db/webhooks.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { createGuardedFetch } from '../../lib/net/guarded-fetch.ts';
import { checkTarget } from '../../lib/net/target-guard.ts';

/** Not sent again: the connection's own, and those the client computes for the new request. */
const NOT_REPLAYED = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length', 'expect']);
/** The most of the target's answer kept (the rest is cut, `truncated` says so). */
const ANSWER_BYTES = 64 * 1024;

export function webhookReplayService({ db, allow }: { db: Kysely<Database>; allow: readonly string[] }) {
  const fetchOnce = createGuardedFetch({ allow, followRedirects: false, timeoutMs: 10_000, maxBytes: ANSWER_BYTES, onOversize: 'truncate', field: 'target_url' });
  return {
    async replay(userId: number, webhookId: string, requestId: number, targetUrl: string) {
      await checkTarget(targetUrl, { allow, field: 'target_url' });
      const webhook = await findOwnedWebhook(db, userId, webhookId);
      if (!webhook) throw new NotFoundError(`No webhook ${webhookId} among yours`);
      const capture = await findCapture(db, webhook.id, requestId);
      if (!capture) throw new NotFoundError(`No captured request ${requestId} in webhook ${webhookId}`);
      const below = capture.path.slice(`/webhook/${webhookId}`.length);
      const target = new URL(targetUrl);
      const query = capture.queryParams ? new URLSearchParams(Object.entries(JSON.parse(capture.queryParams) as Record<string, string | string[]>).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => [k, String(x)]))) : null;
      const url = `${target.origin}${target.pathname.replace(/\/$/, '')}${below}${target.search}${query ? `${target.search ? '&' : '?'}${query}` : ''}`;
      const headers = Object.fromEntries(Object.entries(capture.headers).filter(([name]) => !NOT_REPLAYED.has(name)));
      const body = capture.body === null ? undefined : Buffer.from(capture.body, capture.bodyEncoding === 'base64' ? 'base64' : 'utf8');
      const began = performance.now();
      const res = await fetchOnce(url, { method: capture.method, headers, body });
      return {
        request_id: requestId,
        target_url: url,
        sent: { method: capture.method, header_names: Object.keys(headers), body_size: body?.length ?? 0 },
        response: { status: res.status, headers: res.headers, body: res.body.toString('utf8'), truncated: res.truncated },
        duration_ms: Math.round((performance.now() - began) * 100) / 100,
      };
    },
  };
}

export type WebhookReplayService = ReturnType<typeof webhookReplayService>;
