// The webhooks' background work (workflows/webhooks.ts): forwarding each capture of a webhook that
// names a forward URL, and the scheduled upkeep: the expiry of captures past their webhook's
// retention, and a wake for forwarders whose captures wait (their API process died before it
// signalled, say).
import { defineSignal } from '@temporalio/workflow';

/** One forwarder per forwarding webhook, by this workflow id: captures are signalled to it, never lost if a signal is (it reads the pending ones). */
export const forwarderWorkflowId = (webhookId: string) => `webhook-forward-${webhookId}`;
/** Tells a webhook's forwarder that captures were stored (their deliveries pending in the database). */
export const capturesStored = defineSignal('capturesStored');

/** Tries per delivery: the first and nine retries, 1 s apart then doubling up to 10 min (about 17 min in all). */
export const DELIVERY_ATTEMPTS = 10;
export const DELIVERY_RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: DELIVERY_ATTEMPTS } as const;

export type WebhookForwardingWorkflow = (webhookId: string) => Promise<{ delivered: number }>;

/** The schedule that starts webhookUpkeep (created by every API process at start, once). */
export const WEBHOOK_UPKEEP_SCHEDULE_ID = 'webhook-upkeep';
export const WEBHOOK_UPKEEP_EVERY = '5 minutes';
/** A delivery pending this long with no forwarder on it gets one (the upkeep's look). */
export const STALLED_DELIVERY_SECONDS = 60;
export type WebhookUpkeepWorkflow = () => Promise<{ deleted: number; woken: number }>;
