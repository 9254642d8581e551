// The webhooks' background work (workflows/webhooks.ts): forwarding the captures of webhooks that
// name a forward URL, and the scheduled upkeep: the expiry of captures past their webhook's
// retention, and a wake for the forwarder when deliveries wait (an API process died before it
// signalled, say).
import { defineSignal } from '@temporalio/workflow';
import { defineJobKind } from './job-kind.ts';

/**
 * One forwarder for the whole service, whatever the number of webhooks: the work it gives Temporal
 * grows with the batches it delivers, not with the webhooks that forward (a workflow per webhook
 * measured 100 % of the Temporal server's CPU and not one delivery with 1,000 busy webhooks).
 */
export const FORWARDER_WORKFLOW_ID = 'webhook-forwarder';
/** Tells the forwarder that captures were stored (their deliveries are pending in the database). */
export const capturesStored = defineSignal('capturesStored');

/**
 * Deliveries yield to captures: while more than BUSY_CAPTURES a second are stored, deliveries go at
 * most BUSY_RATE a second (activities/webhooks/index.ts), and API processes wake the forwarder less
 * often (api/services/webhooks/webhook-forwarding.ts).
 */
export const BUSY_CAPTURES = 200;
export const BUSY_RATE = 20;

/**
 * Tries per delivery: the first and nine retries, 1 s after the first failure and doubling (256 s
 * before the tenth: about 8.5 min of waiting in all).
 */
export const DELIVERY_ATTEMPTS = 10;
export const retryDelayMs = (failedAttempt: number) => Math.min(600_000, 1000 * 2 ** (failedAttempt - 1));

/** A batch of deliveries: captures due now, of one webhook each group. */
export interface DeliveryGroup {
  webhookId: string;
  ids: number[];
}

export type WebhookForwarderWorkflow = (nextRetryAt?: number | null) => Promise<{ delivered: number }>;
export const WEBHOOK_FORWARDER_JOB = defineJobKind<WebhookForwarderWorkflow>()({
  kind: FORWARDER_WORKFLOW_ID,
  workflow: 'webhookForwarder',
  pools: ['network'],
  internal: 'delivers the captures of every webhook that names a forward URL (one workflow, started on demand)',
});

/** The schedule that starts webhookUpkeep (created by every API process at start, once). */
export const WEBHOOK_UPKEEP_SCHEDULE_ID = 'webhook-upkeep';
export const WEBHOOK_UPKEEP_EVERY = '5 minutes';
/** A delivery due this long with nothing done gets the forwarder woken (the upkeep's look). */
export const STALLED_DELIVERY_SECONDS = 60;
export type WebhookUpkeepWorkflow = () => Promise<{ deleted: number; woken: boolean }>;
export const WEBHOOK_UPKEEP_JOB = defineJobKind<WebhookUpkeepWorkflow>()({
  kind: WEBHOOK_UPKEEP_SCHEDULE_ID,
  workflow: 'webhookUpkeep',
  pools: ['network'],
  internal: `expires old captures and wakes a stalled forwarder, every ${WEBHOOK_UPKEEP_EVERY} (a schedule)`,
});

/**
 * A wait for a capture as a job (an MCP task: workflows/webhooks.ts `webhookWait`): one activity on the
 * network pool waits as my-webhook-wait does (domain/webhooks/capture-wait.ts) and answers the capture's id.
 */
export const WEBHOOK_WAIT_KIND = 'webhook-wait';
export interface WebhookWaitInput {
  userId: number;
  webhookId: string;
  /** The filters of my-webhook-wait; `since` an ISO 8601 time. */
  filter: { method?: string; header?: { name: string; value?: string }; text?: string; since?: string };
  /** Only captures with a higher id count (the webhook's newest when the call came; 0 with `since`). */
  afterId: number;
  /** When the wait ends without one (epoch ms): a retried activity waits until the same time. */
  deadline: number;
  /** The live-stream slot the API took for it (api/services/streams.ts): the activity keeps it, then frees it. */
  slot: { holder: string; limit: number };
}
/** The capture found (its id), none in time (null), or the webhook deleted meanwhile (`gone`). */
export interface WebhookWaitOutcome {
  webhookId: string;
  requestId: number | null;
  gone?: boolean;
}
export type WebhookWaitWorkflow = (input: WebhookWaitInput) => Promise<WebhookWaitOutcome>;
export const WEBHOOK_WAIT_JOB = defineJobKind<WebhookWaitWorkflow>()({
  kind: WEBHOOK_WAIT_KIND,
  workflow: 'webhookWait',
  pools: ['network'],
  task: { restStarted: false },
});
