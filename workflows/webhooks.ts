// The webhooks' background work (lib/jobs/webhooks.ts).
// - webhookForwarding: one per forwarding webhook. The API signals it (signalWithStart) when captures
//   are stored; it reads the webhook's pending deliveries from the database (a lost signal loses
//   nothing: the next look reads them all) and delivers them in batches, each an activity on the
//   network pool that Temporal retries with backoff. LANES batches run at once, so a receiver that
//   keeps failing some captures does not hold back the others. It keeps looking while there is
//   work; idle for IDLE, it ends, and the next capture starts it again. Its history stays short: it
//   continues as new every CONTINUE_AFTER deliveries.
// - webhookUpkeep: started by a schedule, deletes what webhooks no longer keep, and starts (or wakes)
//   the forwarder of every webhook whose deliveries have waited a minute: the API signals forwarders
//   after it stored captures, and a process that died in between would otherwise leave them waiting
//   until the webhook's next capture.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ActivityFailure, condition, continueAsNew, getExternalWorkflowHandle, ParentClosePolicy, proxyActivities, setHandler, startChild, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks/index.ts';
import { capturesStored, DELIVERY_RETRY, forwarderWorkflowId, TASK_QUEUES, type WebhookForwardingWorkflow, type WebhookUpkeepWorkflow } from '../lib/jobs/index.ts';

const IDLE = '10 minutes';
/** Captures per delivery activity (sent at once), and activities in flight per webhook. */
const BATCH = 20;
const LANES = 2;
const CONTINUE_AFTER = 2_000;

const { deliverCaptures } = proxyActivities<WebhookActivities>({ taskQueue: TASK_QUEUES.network, startToCloseTimeout: '90 seconds', retry: DELIVERY_RETRY });
const { pendingDeliveries, giveUpDeliveries, expireCaptures, stalledForwarders } = proxyActivities<WebhookActivities>({ taskQueue: TASK_QUEUES.network, startToCloseTimeout: '5 minutes' });

export const webhookForwarding: WebhookForwardingWorkflow = async (webhookId) => {
  let look = true; // a new run looks at once
  setHandler(capturesStored, () => {
    look = true;
  });
  const inFlight = new Set<number>();
  let running = 0;
  let delivered = 0;
  const deliver = async (ids: number[]) => {
    running += 1;
    ids.forEach((id) => inFlight.add(id));
    try {
      await deliverCaptures(webhookId, ids);
    } catch (err) {
      // Every attempt ran out with some still pending and no outcome recorded (a worker lost mid-attempt, say).
      await giveUpDeliveries(webhookId, ids, err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : String(err));
    } finally {
      ids.forEach((id) => inFlight.delete(id));
      running -= 1;
      delivered += ids.length;
      look = true; // captures stored meanwhile may have found no lane free
    }
  };
  for (;;) {
    if (delivered >= CONTINUE_AFTER || workflowInfo().continueAsNewSuggested) {
      await condition(() => running === 0);
      await continueAsNew<WebhookForwardingWorkflow>(webhookId);
    }
    if (!(await condition(() => look && running < LANES, IDLE))) {
      if (running === 0) return { delivered };
      continue;
    }
    look = false;
    const ids = (await pendingDeliveries(webhookId, BATCH + inFlight.size)).filter((id) => !inFlight.has(id)).slice(0, BATCH);
    if (ids.length === 0) continue;
    void deliver(ids);
    look = true; // there may be more than one batch waiting
  }
};

export const webhookUpkeep: WebhookUpkeepWorkflow = async () => {
  const deleted = await expireCaptures();
  const stalled = await stalledForwarders();
  for (const webhookId of stalled) {
    const workflowId = forwarderWorkflowId(webhookId);
    try {
      await startChild(webhookForwarding, { workflowId, args: [webhookId], parentClosePolicy: ParentClosePolicy.ABANDON });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      // Running already: a wake costs nothing; one that ended meanwhile is the next upkeep's to start.
      await getExternalWorkflowHandle(workflowId).signal(capturesStored).catch(() => undefined);
    }
  }
  return { deleted, woken: stalled.length };
};
