// The webhooks' workflows as the API drives them (workflows/webhooks.ts): waking a webhook's
// forwarder when captures were stored, and the schedule of their upkeep (expiry, stalled forwarders).
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { WEBHOOK_UPKEEP_EVERY, WEBHOOK_UPKEEP_SCHEDULE_ID, capturesStored, forwarderWorkflowId, TASK_QUEUES, type JobWorkflows } from '../../lib/jobs/index.ts';

/** After a wake, the next one to the same forwarder waits this long (a busy forwarder looks again by itself). */
export const WAKE_EVERY_MS = 500;

/**
 * Wakes forwarders. Captures arrive far faster than signals are worth sending, so each webhook gets
 * at most one signal per WAKE_EVERY_MS, and one more after that when captures were stored meanwhile:
 * the forwarder reads every pending delivery at each look, so nothing is owed to a signal.
 */
export function webhookForwardingService(temporal: Client, onError: (err: unknown) => void) {
  const inFlight = new Set<string>();
  const again = new Set<string>();
  function wake(webhookId: string): void {
    if (inFlight.has(webhookId)) {
      again.add(webhookId);
      return;
    }
    inFlight.add(webhookId);
    temporal.workflow
      .signalWithStart<JobWorkflows['webhookForwarding'], []>('webhookForwarding', {
        workflowId: forwarderWorkflowId(webhookId),
        taskQueue: TASK_QUEUES.workflows,
        args: [webhookId],
        signal: capturesStored,
        signalArgs: [],
      })
      .catch(onError)
      .finally(() => {
        setTimeout(() => {
          inFlight.delete(webhookId);
          if (again.delete(webhookId)) wake(webhookId);
        }, WAKE_EVERY_MS).unref();
      });
  }
  return {
    /** Captures of these (forwarding) webhooks were stored. */
    stored(webhookIds: Iterable<string>): void {
      for (const id of webhookIds) wake(id);
    },
  };
}

/** Creates the webhooks' upkeep schedule unless it exists (every API process calls this at start). */
export async function ensureWebhookUpkeepSchedule(temporal: Client): Promise<void> {
  try {
    await temporal.schedule.create({
      scheduleId: WEBHOOK_UPKEEP_SCHEDULE_ID,
      spec: { intervals: [{ every: WEBHOOK_UPKEEP_EVERY }] },
      action: { type: 'startWorkflow', workflowType: 'webhookUpkeep', taskQueue: TASK_QUEUES.workflows, args: [] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
