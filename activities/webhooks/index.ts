// Activities of the network pool for webhooks: delivering a capture to its webhook's forward URL (one
// attempt per activity attempt: Temporal retries with backoff, lib/jobs/webhooks.ts), and the
// scheduled expiry of captures. Each attempt is recorded on the capture before the activity returns
// or asks for a retry, so the capture shows every try whatever happens to the worker afterwards.
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { Kysely } from 'kysely';
import { captureToDeliver, pendingDeliveries, recordDeliveryAttempt } from '../../db/capture-deliveries.ts';
import { expireCaptures } from '../../db/capture-retention.ts';
import type { Database, DeliveryAttempt } from '../../db/schema.ts';
import { InvalidInputError } from '../../lib/errors.ts';
import { DELIVERY_ATTEMPTS } from '../../lib/jobs/webhooks.ts';
import { createGuardedFetch } from '../../lib/net/guarded-fetch.ts';
import { DEFAULT_RETENTION } from '../../lib/plans.ts';
import { resentRequest } from '../../lib/webhook-resend.ts';

/** How long a receiver has to answer one delivery. */
export const DELIVERY_TIMEOUT_MS = 30_000;

export interface WebhookActivityDeps {
  db: Kysely<Database>;
  allow: readonly string[];
}

export function createWebhookActivities({ db, allow }: WebhookActivityDeps) {
  // The receiver's body is not kept: only its status and time (a little is read, then dropped).
  const send = createGuardedFetch({ allow, followRedirects: false, timeoutMs: DELIVERY_TIMEOUT_MS, maxBytes: 4096, onOversize: 'truncate', field: 'forward_url' });
  return {
    /** The ids of the webhook's captures waiting for delivery, oldest first. */
    async pendingDeliveries(webhookId: string, limit: number): Promise<number[]> {
      return pendingDeliveries(db, webhookId, limit);
    },

    /**
     * One attempt at delivering a capture: a 2xx is `success`; anything else asks Temporal for a retry,
     * and the last attempt is `failed`, as is a forward URL the SSRF guard refuses (no retry helps).
     */
    async deliverCapture(webhookId: string, captureId: number): Promise<{ status: 'success' | 'failed' | 'gone' }> {
      const found = await captureToDeliver(db, webhookId, captureId);
      if (!found || found.capture.delivery?.status !== 'pending') return { status: 'gone' }; // deleted, or done by an earlier attempt
      const attempt = Context.current().info.attempt;
      const at = new Date().toISOString();
      const record = (status: 'pending' | 'success' | 'failed', result: Pick<DeliveryAttempt, 'response_status' | 'duration_ms' | 'error'>) => recordDeliveryAttempt(db, found.ref, captureId, status, { attempt, at, ...result });
      if (!found.forwardUrl) {
        await record('failed', { response_status: null, duration_ms: 0, error: 'forwarding was turned off before this capture was delivered' });
        return { status: 'failed' };
      }
      const { url, method, headers, body } = resentRequest(found.capture, webhookId, found.forwardUrl);
      const began = performance.now();
      let status: number | null = null;
      let error: string | null = null;
      let retryable = true;
      try {
        status = (await send(url, { method, headers, body })).status;
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
        retryable = !(err instanceof InvalidInputError); // the guard refused the address: it will refuse it again
      }
      const duration_ms = Math.round((performance.now() - began) * 100) / 100;
      if (status !== null && status >= 200 && status < 300) {
        await record('success', { response_status: status, duration_ms, error: null });
        return { status: 'success' };
      }
      const last = !retryable || attempt >= DELIVERY_ATTEMPTS;
      error ??= `the receiver answered ${status}`;
      await record(last ? 'failed' : 'pending', { response_status: status, duration_ms, error });
      if (last) return { status: 'failed' };
      throw ApplicationFailure.retryable(`delivery attempt ${attempt} of capture ${captureId}: ${error}`, 'DeliveryFailed');
    },

    /** A delivery whose attempts all ended without an answer recorded (a worker lost mid-attempt): failed. */
    async giveUpDelivery(webhookId: string, captureId: number, reason: string): Promise<void> {
      const found = await captureToDeliver(db, webhookId, captureId);
      if (!found || found.capture.delivery?.status !== 'pending') return;
      const attempts = found.capture.delivery.attempts;
      await recordDeliveryAttempt(db, found.ref, captureId, 'failed', { attempt: attempts + 1, at: new Date().toISOString(), response_status: null, duration_ms: 0, error: `gave up: ${reason}` });
    },

    /** The scheduled expiry: captures past their webhook's age or count; answers how many went. */
    async expireCaptures(): Promise<number> {
      return expireCaptures(db, DEFAULT_RETENTION);
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
