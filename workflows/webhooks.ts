// The webhooks' background work (lib/jobs/webhooks.ts).
// - webhookForwarder: one for the service. The API signals it (signalWithStart) when captures of
//   forwarding webhooks are stored; it reads the deliveries due from the database (a lost signal
//   loses nothing: the next look reads them all) and delivers them in batches, each an activity on
//   the network pool: at most WEBHOOKS_PER_BATCH webhooks and PER_WEBHOOK captures each, LANES
//   batches at once, never two batches of one webhook at once. A failed attempt sets its capture's
//   next attempt (backoff, in the database), and the forwarder sleeps until the earliest one or a
//   signal. So its work for Temporal grows with batches, not webhooks, and one receiver that keeps
//   failing holds back nobody. Idle for IDLE with no retry waiting, it ends; the next capture starts
//   it again. It continues as new every CONTINUE_AFTER activities (its history stays short).
// - webhookUpkeep: started by a schedule: deletes what webhooks no longer keep, and wakes the
//   forwarder when deliveries have waited past their time (an API process died before it signalled).
// - webhookWait: a wait for a capture as a job (an MCP task): one activity on the network pool.
import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { WebhookActivities } from '../activities/webhooks/index.ts';
import type { WebhookWaitActivities } from '../activities/webhooks/wait.ts';
import {
  capturesStored,
  FORWARDER_WORKFLOW_ID,
  TASK_QUEUES,
  type DeliveryGroup,
  type WebhookForwarderWorkflow,
  type WebhookUpkeepWorkflow,
  type WebhookWaitWorkflow,
} from '../lib/jobs/index.ts';

const IDLE_MS = 10 * 60_000;
const LANES = 4;
const WEBHOOKS_PER_BATCH = 25;
const PER_WEBHOOK = 20;
/** Activities (looks and batches) after which it continues as new. */
const CONTINUE_AFTER = 1_000;

// A batch is one attempt per capture (their retries are the forwarder's, by due time); Temporal's
// retries of the activity cover a worker lost mid-batch (its captures may then be sent twice: at least once).
const { deliverCaptures } = proxyActivities<WebhookActivities>({
  taskQueue: TASK_QUEUES.network,
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 3 },
});
const { dueDeliveries, expireCaptures, deliveriesStalled } = proxyActivities<WebhookActivities>({
  taskQueue: TASK_QUEUES.network,
  startToCloseTimeout: '5 minutes',
});

// A wait lasts at most 120 s and heartbeats every second (sent at most every 12 s: 0.8 x the timeout):
// a lost worker's is retried elsewhere (until the same deadline). A cancelled task ends at once (the
// API frees its live-stream slot); its wait hears it at its next heartbeat sent. However busy the
// network pool, the wait ends by its deadline (and a little margin): then it timed out.
const WAIT_MARGIN_MS = 30_000;

export const webhookWait: WebhookWaitWorkflow = (input) => {
  const { waitForCapture } = proxyActivities<WebhookWaitActivities>({
    taskQueue: TASK_QUEUES.network,
    startToCloseTimeout: '3 minutes',
    scheduleToCloseTimeout: Math.max(1000, input.deadline - Date.now()) + WAIT_MARGIN_MS,
    heartbeatTimeout: '15 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
  });
  return waitForCapture(input);
};

export const webhookForwarder: WebhookForwarderWorkflow = async (retryAt = null) => {
  let look = true; // a new run looks at once
  setHandler(capturesStored, () => {
    look = true;
  });
  const busy = new Set<string>();
  let nextRetryAt = retryAt;
  let running = 0;
  let activities = 0;
  let delivered = 0;
  const deliver = async (groups: DeliveryGroup[]) => {
    running += 1;
    for (const g of groups) busy.add(g.webhookId);
    try {
      const done = await deliverCaptures(groups);
      delivered += done.delivered;
      if (done.nextRetryAt !== null) nextRetryAt = Math.min(nextRetryAt ?? Infinity, done.nextRetryAt);
    } catch (err) {
      // Three tries of this batch lost (what they recorded stays): its webhooks rest a minute, then
      // what is still due comes up again. A batch cancelled with the forwarder rests no more: the
      // forwarder's own wait ends it (a rejection here, in a batch nobody awaits, would fail every
      // workflow task instead).
      if (!isCancellation(err)) await sleep('1 minute').catch(() => {});
    } finally {
      for (const g of groups) busy.delete(g.webhookId);
      running -= 1;
      look = true; // what was stored meanwhile may have found no lane free
    }
  };
  for (;;) {
    if (activities >= CONTINUE_AFTER || workflowInfo().continueAsNewSuggested) {
      await condition(() => running === 0);
      await continueAsNew<WebhookForwarderWorkflow>(nextRetryAt);
    }
    const wait = nextRetryAt === null ? IDLE_MS : Math.max(0, nextRetryAt - Date.now());
    if (!(await condition(() => look && running < LANES, wait))) {
      if (nextRetryAt !== null && nextRetryAt <= Date.now()) {
        nextRetryAt = null; // this look takes what is due; later failures set it again
        look = true;
      } else if (running === 0 && nextRetryAt === null) {
        return { delivered };
      }
      continue;
    }
    look = false;
    const due = await dueDeliveries([...busy], PER_WEBHOOK, WEBHOOKS_PER_BATCH);
    activities += 1;
    nextRetryAt = due.nextRetryAt; // every retry waiting, whoever set it
    if (due.groups.length === 0) continue;
    activities += 1;
    void deliver(due.groups);
    look = true; // there may be more than one batch due
  }
};

export const webhookUpkeep: WebhookUpkeepWorkflow = async () => {
  const deleted = await expireCaptures();
  const stalled = await deliveriesStalled();
  if (stalled) {
    try {
      await startChild(webhookForwarder, {
        workflowId: FORWARDER_WORKFLOW_ID,
        args: [null],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      // Running already: a wake costs nothing; one that ended meanwhile is the next upkeep's to start.
      await getExternalWorkflowHandle(FORWARDER_WORKFLOW_ID)
        .signal(capturesStored)
        .catch(() => undefined);
    }
  }
  return { deleted, woken: stalled };
};
