// The webhooks' workflows as the API drives them (workflows/webhooks.ts): waking the forwarder when
// captures of forwarding webhooks were stored, and the schedule of their upkeep (expiry, stalled deliveries).
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { capturesStored, FORWARDER_WORKFLOW_ID, TASK_QUEUES, WEBHOOK_UPKEEP_EVERY, WEBHOOK_UPKEEP_SCHEDULE_ID, type JobWorkflows } from '../../lib/jobs/index.ts';

/** After a wake, the next one waits this long (a busy forwarder looks again by itself). */
export const WAKE_EVERY_MS = 250;

/**
 * Wakes the forwarder. Captures arrive far faster than signals are worth sending, so a process sends
 * at most one signal per WAKE_EVERY_MS, and one more after that when captures were stored meanwhile:
 * the forwarder reads every delivery due at each look, so nothing is owed to a signal.
 */
export function webhookForwardingService(temporal: Client, onError: (err: unknown) => void) {
  let waking = false;
  let again = false;
  function wake(): void {
    if (waking) {
      again = true;
      return;
    }
    waking = true;
    temporal.workflow
      .signalWithStart<JobWorkflows['webhookForwarder'], []>('webhookForwarder', {
        workflowId: FORWARDER_WORKFLOW_ID,
        taskQueue: TASK_QUEUES.workflows,
        args: [null],
        signal: capturesStored,
        signalArgs: [],
      })
      .catch(onError)
      .finally(() => {
        setTimeout(() => {
          waking = false;
          if (again) {
            again = false;
            wake();
          }
        }, WAKE_EVERY_MS).unref();
      });
  }
  return {
    /** Captures of forwarding webhooks were stored. */
    stored(): void {
      wake();
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
