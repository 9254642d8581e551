// Activities of the network pool for webhooks: delivering captures to their webhook's forward URL (a
// batch per activity, one attempt each per activity attempt: Temporal retries with backoff,
// lib/jobs/webhooks.ts), and the scheduled expiry of captures. Each attempt is recorded on its
// capture before the activity returns or asks for a retry, so a capture shows every try.
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { Kysely } from 'kysely';
import { capturesToDeliver, pendingDeliveries, recordDeliveryAttempts, stalledForwarders, type AttemptRecord } from '../../db/capture-deliveries.ts';
import { expireCaptures } from '../../db/capture-retention.ts';
import type { Database, DeliveryAttempt } from '../../db/schema.ts';
import { InvalidInputError } from '../../lib/errors.ts';
import { DELIVERY_ATTEMPTS, STALLED_DELIVERY_SECONDS } from '../../lib/jobs/webhooks.ts';
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
     * One attempt at delivering each of `ids` still pending (all at once; a retry of this activity
     * sends only those still pending): a 2xx is `success`; anything else is recorded and, when some
     * could still succeed, the activity fails so that Temporal retries it after its backoff. The last
     * attempt, or a forward URL the SSRF guard refuses (no retry helps), is `failed`.
     */
    async deliverCaptures(webhookId: string, ids: number[]): Promise<{ delivered: number; failed: number }> {
      const found = await capturesToDeliver(db, webhookId, ids);
      if (!found || found.captures.length === 0) return { delivered: 0, failed: 0 }; // deleted, or done by an earlier attempt
      const attempt = Context.current().info.attempt;
      const at = new Date().toISOString();
      const outcomes = await Promise.all(
        found.captures.map(async (capture): Promise<AttemptRecord & { retryable: boolean }> => {
          const record = (status: AttemptRecord['status'], result: Pick<DeliveryAttempt, 'response_status' | 'duration_ms' | 'error'>, retryable = false) => ({ id: capture.id, status, retryable, attempt: { attempt, at, ...result } });
          if (!found.forwardUrl) return record('failed', { response_status: null, duration_ms: 0, error: 'forwarding was turned off before this capture was delivered' });
          const { url, method, headers, body } = resentRequest(capture, webhookId, found.forwardUrl);
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
          if (status !== null && status >= 200 && status < 300) return record('success', { response_status: status, duration_ms, error: null });
          const again = retryable && attempt < DELIVERY_ATTEMPTS;
          return record(again ? 'pending' : 'failed', { response_status: status, duration_ms, error: error ?? `the receiver answered ${status}` }, again);
        }),
      );
      await recordDeliveryAttempts(db, found.ref, outcomes.map(({ retryable: _r, ...o }) => o));
      const retry = outcomes.filter((o) => o.retryable);
      if (retry.length > 0) throw ApplicationFailure.retryable(`attempt ${attempt}: ${retry.length} of ${outcomes.length} deliveries to retry (${retry[0]!.attempt.error})`, 'DeliveryFailed');
      return { delivered: outcomes.filter((o) => o.status === 'success').length, failed: outcomes.filter((o) => o.status === 'failed').length };
    },

    /** Deliveries whose attempts all ended without an outcome recorded (a worker lost mid-attempt): failed. */
    async giveUpDeliveries(webhookId: string, ids: number[], reason: string): Promise<void> {
      const found = await capturesToDeliver(db, webhookId, ids);
      if (!found) return;
      const at = new Date().toISOString();
      await recordDeliveryAttempts(db, found.ref, found.captures.map((c) => ({ id: c.id, status: 'failed', attempt: { attempt: (c.delivery?.attempts ?? 0) + 1, at, response_status: null, duration_ms: 0, error: `gave up: ${reason}` } })));
    },

    /** The scheduled expiry: captures past their webhook's age or count; answers how many went. */
    async expireCaptures(): Promise<number> {
      return expireCaptures(db, DEFAULT_RETENTION);
    },

    /** The webhooks whose deliveries wait with no forwarder on them, perhaps (a thousand at most per look). */
    async stalledForwarders(): Promise<string[]> {
      return stalledForwarders(db, STALLED_DELIVERY_SECONDS, 1000);
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
