// Sends a capture again, after a fix, to a URL the user names, byte for byte (lib/webhooks/webhook-resend.ts).
// Through the SSRF guard, redirects not followed (their answer is the answer), bounded in time and size.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import { findCapture, findOwnedWebhook } from '../../../db/webhooks/webhooks.ts';
import { NotFoundError } from '../../../lib/errors.ts';
import { createGuardedFetch } from '../../../lib/net/guarded-fetch.ts';
import { checkTarget } from '../../../lib/net/target-guard.ts';
import { resentRequest, sentTarget } from '../../../lib/webhooks/webhook-resend.ts';
import { withTargetHint } from './webhook-target-hints.ts';

/** The most of the target's answer kept (the rest is cut, `truncated` says so). */
const ANSWER_BYTES = 64 * 1024;

export function webhookReplayService({ db, allow }: { db: Kysely<Database>; allow: readonly string[] }) {
  const fetchOnce = createGuardedFetch({
    allow,
    followRedirects: false,
    timeoutMs: 10_000,
    maxBytes: ANSWER_BYTES,
    onOversize: 'truncate',
    field: 'target_url',
  });
  return {
    async replay(userId: number, webhookId: string, requestId: number, targetUrl: string) {
      await checkTarget(targetUrl, { allow, field: 'target_url' }).catch((e) => {
        throw withTargetHint(e, { replay: { webhookId, requestId } });
      });
      const webhook = await findOwnedWebhook(db, userId, webhookId);
      if (!webhook) throw new NotFoundError(`No webhook ${webhookId} among yours`);
      const capture = await findCapture(db, webhook.id, requestId);
      if (!capture) throw new NotFoundError(`No captured request ${requestId} in webhook ${webhookId}`);
      const { url, headers, body } = resentRequest(capture, webhookId, targetUrl);
      const began = performance.now();
      // A name that resolves to a refused address at connect time is refused there too.
      // The path and query as the sender spelled them, not as the URL parser re-spells them.
      const sent = { method: capture.method, headers, body, target: sentTarget(url) };
      const res = await fetchOnce(url, sent).catch((e) => {
        throw withTargetHint(e, { replay: { webhookId, requestId } });
      });
      return {
        request_id: requestId,
        target_url: url,
        sent: { method: capture.method, header_names: Object.keys(headers), body_size: body?.length ?? 0 },
        response: {
          status: res.status,
          headers: res.headers,
          body: res.body.toString('utf8'),
          truncated: res.truncated,
        },
        duration_ms: Math.round((performance.now() - began) * 100) / 100,
      };
    },
  };
}

export type WebhookReplayService = ReturnType<typeof webhookReplayService>;
