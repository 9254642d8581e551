// Activities of the network pool for webhooks: the forwarder's look for deliveries due, a batch of
// deliveries (one attempt each; a failure sets when the next is due, with backoff, and the tenth is
// the last), and the scheduled upkeep's expiry and stalled-delivery check. Each attempt is recorded
// on its capture about RECORD_WAIT_MS after its end, and always before the activity returns, so a
// capture shows every try.
import { performance } from 'node:perf_hooks';
import { Context } from '@temporalio/activity';
import type { Kysely } from 'kysely';
import {
  capturesEverStored,
  capturesToDeliver,
  findDueDeliveries,
  hasStalledDeliveries,
  nextRetryAt,
  raiseDeliveryFloors,
  recordDeliveryAttempts,
  type AttemptRecord,
} from '../../db/webhooks/capture-deliveries.ts';
import { expireCaptures } from '../../db/webhooks/capture-retention.ts';
import type { Database, DeliveryAttempt } from '../../db/schema.ts';
import type { CapturedRequest } from '../../db/webhooks/webhooks.ts';
import {
  BUSY_CAPTURES,
  BUSY_RATE,
  DELIVERY_ATTEMPTS,
  retryDelayMs,
  STALLED_DELIVERY_SECONDS,
  type DeliveryGroup,
} from '../../lib/jobs/webhooks.ts';
import { createGuardedFetch } from '../../lib/net/guarded-fetch.ts';
import { ForbiddenAddressError } from '../../lib/net/target-guard.ts';
import { batcher } from '../../lib/concurrency/batcher.ts';
import { busyGate, rateOf, waitWhileBusy } from '../../lib/concurrency/busy-gate.ts';
import { processMetrics } from '../../lib/metrics.ts';
import { DEFAULT_RETENTION, RETENTION_CAPS } from '../../lib/plans.ts';
import { DELIVERY_HEADER, resentRequest, sentTarget } from '../../lib/webhooks/webhook-resend.ts';

/** How long a receiver has to answer one delivery. */
export const DELIVERY_TIMEOUT_MS = 30_000;
/** Deliveries of one webhook in flight at once (a receiver sees at most this many from us at a time). */
export const PER_RECEIVER = 4;
/** How long a look waits, at most, for captures to stop pouring in (the forwarder's share of a busy database). */
const LOOK_WAIT_MS = 10_000;
/**
 * Attempts are recorded together: up to RECORD_BATCH in one statement, about RECORD_WAIT_MS after
 * one ends (later when the statement before is slow). A worker lost meanwhile, or a statement that
 * fails, loses those records: their captures are sent again (at least once).
 */
const RECORD_BATCH = 200;
const RECORD_WAIT_MS = 250;

export interface WebhookActivityDeps {
  db: Kysely<Database>;
  /** The database is the embedded one (PGlite), whose one session every process shares. */
  embedded: boolean;
  allow: readonly string[];
}

export function createWebhookActivities({ db, embedded, allow }: WebhookActivityDeps) {
  // Deliveries yield to captures (BUSY_CAPTURES, BUSY_RATE), else go as fast as they can. On the
  // embedded database the captures counted are every process's (its one session is what both share:
  // an API process on its socket stored 354-443 captures a second while another process delivered at
  // full speed, measured); on Postgres only this process's (the embedded mode's API beside this
  // pool; a process that only delivers never yields).
  const captureRate = rateOf(
    embedded
      ? () => capturesEverStored(db)
      : async () => (await processMetrics().capturesStored.get()).values[0]?.value ?? 0,
  );
  /** Whether captures pour in (a rate that cannot be read: no). */
  const capturesPourIn = async () => (await captureRate().catch(() => 0)) > BUSY_CAPTURES;
  /** Deliveries wait here while they do (lib/concurrency/busy-gate.ts), shared by every batch of the process. */
  const yieldToCaptures = busyGate(capturesPourIn, BUSY_RATE);
  // The receiver's body is not kept: only its status and time (a little is read, then dropped).
  const send = createGuardedFetch({
    allow,
    followRedirects: false,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    maxBytes: 4096,
    onOversize: 'truncate',
    field: 'forward_url',
    keepAlive: true,
  });

  /**
   * One attempt at one capture: a 2xx is `success`; otherwise pending again with its next attempt due, or `failed`
   * after the last (or when the guard refuses the URL: no retry helps).
   */
  async function attempt(
    webhookId: string,
    ref: number,
    forwardUrl: string,
    capture: CapturedRequest,
  ): Promise<AttemptRecord> {
    const n = (capture.delivery?.attempts ?? 0) + 1;
    const at = new Date().toISOString();
    const { url, method, headers, body } = resentRequest(capture, webhookId, forwardUrl);
    headers[DELIVERY_HEADER] = `${webhookId}/${capture.id}`;
    const began = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    let retryable = true;
    try {
      status = (await send(url, { method, headers, body, target: sentTarget(url) })).status;
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
      retryable = !(err instanceof ForbiddenAddressError); // the guard refused the address: it will refuse it again
    }
    const duration_ms = Math.round((performance.now() - began) * 100) / 100;
    const tried = (result: Pick<DeliveryAttempt, 'response_status' | 'error'>): DeliveryAttempt => ({
      attempt: n,
      at,
      duration_ms,
      ...result,
    });
    if (status !== null && status >= 200 && status < 300)
      return {
        ref,
        id: capture.id,
        status: 'success',
        nextAttemptAt: null,
        attempt: tried({ response_status: status, error: null }),
      };
    const again = retryable && n < DELIVERY_ATTEMPTS;
    return {
      ref,
      id: capture.id,
      status: again ? 'pending' : 'failed',
      nextAttemptAt: again ? new Date(Date.now() + retryDelayMs(n)).toISOString() : null,
      attempt: tried({ response_status: status, error: error ?? `the receiver answered ${status}` }),
    };
  }

  return {
    /** The deliveries due now, by webhook (those in `busy` skipped), and when the earliest retry waiting is due. */
    async dueDeliveries(
      busy: string[],
      perWebhook: number,
      webhooks: number,
    ): Promise<{ groups: DeliveryGroup[]; nextRetryAt: number | null }> {
      // While captures pour in, a look waits for them to stop (LOOK_WAIT_MS at most): the database is
      // theirs, and batches under way go on at the busy rate meanwhile. (Waiting a second, four looks
      // and the reading of the captures of four batches came in a burst's first seconds.)
      await waitWhileBusy(capturesPourIn, LOOK_WAIT_MS, 500);
      const [groups, next] = await Promise.all([findDueDeliveries(db, busy, perWebhook, webhooks), nextRetryAt(db)]);
      return { groups, nextRetryAt: next };
    },

    /**
     * One attempt at each capture of each group, PER_RECEIVER at a time per webhook, all webhooks at
     * once; answers how many succeeded and the earliest next attempt any failure set (null: none).
     */
    async deliverCaptures(groups: DeliveryGroup[]): Promise<{ delivered: number; nextRetryAt: number | null }> {
      let delivered = 0;
      let retryAt: number | null = null;
      const records = batcher<AttemptRecord>((batch) => recordDeliveryAttempts(db, batch), {
        maxItems: RECORD_BATCH,
        maxWaitMs: RECORD_WAIT_MS,
      });
      const refs: number[] = [];
      // Every group runs to its end, even when one fails, so that what each did is recorded before this returns.
      const settled = await Promise.allSettled(
        groups.map(async ({ webhookId, ids }) => {
          const found = await capturesToDeliver(db, webhookId, ids);
          if (!found) return; // deleted, or no longer forwarding (its pending deliveries were failed then)
          refs.push(found.ref);
          let next = 0;
          const lane = async () => {
            while (next < found.captures.length) {
              const capture = found.captures[next++]!; // taken before waiting: the other lanes move on meanwhile
              await yieldToCaptures();
              const r = await attempt(webhookId, found.ref, found.forwardUrl, capture);
              records.add(r);
              if (r.status === 'success') delivered += 1;
              if (r.nextAttemptAt) retryAt = Math.min(retryAt ?? Infinity, Date.parse(r.nextAttemptAt));
            }
          };
          await Promise.all(Array.from({ length: PER_RECEIVER }, lane));
        }),
      );
      await records.close();
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      // A floor only saves reading: one not raised is raised after a later batch.
      await raiseDeliveryFloors(db, refs).catch((err) =>
        Context.current().log.warn('delivery floors not raised', { error: String(err) }),
      );
      return { delivered, nextRetryAt: retryAt };
    },

    /** The scheduled expiry: captures past their webhook's age or count; answers how many went. */
    async expireCaptures(): Promise<number> {
      return expireCaptures(db, DEFAULT_RETENTION, RETENTION_CAPS);
    },

    /** Whether deliveries have waited over a minute past their time (the forwarder needs a wake). */
    async deliveriesStalled(): Promise<boolean> {
      return hasStalledDeliveries(db, STALLED_DELIVERY_SECONDS);
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
