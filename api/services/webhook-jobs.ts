// The webhooks' workflows as the API drives them (workflows/webhooks.ts): waking a webhook's
// forwarder when captures were stored, and the schedule of the capture expiry.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { CAPTURE_EXPIRY_EVERY, CAPTURE_EXPIRY_SCHEDULE_ID, capturesStored, forwarderWorkflowId, TASK_QUEUES, type JobWorkflows } from '../../lib/jobs/index.ts';

/**
 * Wakes forwarders. Captures arrive far faster than signals are worth sending, so each webhook has at
 * most one signal in flight, and one more after it when captures were stored meanwhile: the
 * forwarder reads every pending delivery at each wake, so nothing is owed to a signal.
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
        inFlight.delete(webhookId);
        if (again.delete(webhookId)) wake(webhookId);
      });
  }
  return {
    /** Captures of these (forwarding) webhooks were stored. */
    stored(webhookIds: Iterable<string>): void {
      for (const id of webhookIds) wake(id);
    },
  };
}

/** Creates the capture expiry's schedule unless it exists (every API process calls this at start). */
export async function ensureCaptureExpirySchedule(temporal: Client): Promise<void> {
  try {
    await temporal.schedule.create({
      scheduleId: CAPTURE_EXPIRY_SCHEDULE_ID,
      spec: { intervals: [{ every: CAPTURE_EXPIRY_EVERY }] },
      action: { type: 'startWorkflow', workflowType: 'captureExpiry', taskQueue: TASK_QUEUES.workflows, args: [] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
