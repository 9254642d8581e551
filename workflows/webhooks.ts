// The webhooks' background work (lib/jobs/webhooks.ts).
// - webhookForwarding: one per forwarding webhook. The API signals it (signalWithStart) when captures
//   are stored; it reads the webhook's pending deliveries from the database (a lost signal loses
//   nothing: the next run reads them all) and delivers each as an activity on the network pool, a few
//   at a time, Temporal retrying each with backoff. Idle for IDLE, it ends; the next capture starts
//   it again. Its history stays short: it continues as new every CONTINUE_AFTER deliveries.
// - captureExpiry: started by a schedule, deletes what webhooks no longer keep.
import { ActivityFailure, condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks/index.ts';
import { capturesStored, DELIVERY_RETRY, TASK_QUEUES, type WebhookForwardingWorkflow } from '../lib/jobs/index.ts';

const IDLE = '10 minutes';
const BATCH = 50;
/** Deliveries of one webhook in flight at once (a receiver sees at most this many at a time from us). */
const CONCURRENCY = 4;
const CONTINUE_AFTER = 500;

const { deliverCapture } = proxyActivities<WebhookActivities>({ taskQueue: TASK_QUEUES.network, startToCloseTimeout: '45 seconds', retry: DELIVERY_RETRY });
const { pendingDeliveries, giveUpDelivery, expireCaptures } = proxyActivities<WebhookActivities>({ taskQueue: TASK_QUEUES.network, startToCloseTimeout: '5 minutes' });

export const webhookForwarding: WebhookForwardingWorkflow = async (webhookId) => {
  let nudged = true; // a new run looks at once
  setHandler(capturesStored, () => {
    nudged = true;
  });
  let delivered = 0;
  for (;;) {
    if (!nudged && !(await condition(() => nudged, IDLE))) return { delivered };
    nudged = false;
    const ids = await pendingDeliveries(webhookId, BATCH);
    if (ids.length === BATCH) nudged = true; // more are waiting
    let next = 0;
    const lane = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        try {
          await deliverCapture(webhookId, id);
        } catch (err) {
          // Every attempt ran out without recording an outcome (a worker lost mid-attempt, say).
          await giveUpDelivery(webhookId, id, err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : String(err));
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    delivered += ids.length;
    if (delivered >= CONTINUE_AFTER || workflowInfo().continueAsNewSuggested) await continueAsNew<WebhookForwardingWorkflow>(webhookId);
  }
};

export async function captureExpiry(): Promise<{ deleted: number }> {
  return { deleted: await expireCaptures() };
}
