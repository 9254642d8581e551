// The webhooks' workflows as the API drives them (workflows/webhooks.ts): waking the forwarder when
// captures of forwarding webhooks were stored, and the schedule of their upkeep (expiry, stalled deliveries).
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import {
  BUSY_CAPTURES,
  capturesStored,
  FORWARDER_WORKFLOW_ID,
  TASK_QUEUES,
  WEBHOOK_UPKEEP_EVERY,
  WEBHOOK_UPKEEP_SCHEDULE_ID,
  type JobWorkflows,
} from '../../../lib/jobs/index.ts';

/** After a wake, the next one waits this long (a busy forwarder looks again by itself)... */
export const WAKE_EVERY_MS = 250;
/**
 * ...or this long while this process stores more than BUSY_CAPTURES captures a second: deliveries
 * yield to captures then, and each wake is a workflow task for Temporal (a few a second cost the
 * Temporal server a noticeable share of a core during bench:capture's forwarding bursts).
 */
export const BUSY_WAKE_EVERY_MS = 2_000;

/**
 * Wakes the forwarder. Captures arrive far faster than signals are worth sending, so a process sends
 * at most one signal per WAKE_EVERY_MS (BUSY_WAKE_EVERY_MS while captures pour in), and one more
 * after that when captures of forwarding webhooks were stored meanwhile: the forwarder reads every
 * delivery due at each look, so nothing is owed to a signal.
 */
export function webhookForwardingService({
  temporal,
  onError,
}: {
  temporal: Pick<Client, 'workflow'>;
  /** A wake that failed (its captures go at the next wake). */
  onError: (err: unknown) => void;
}) {
  let waking = false;
  let again = false;
  /** Captures this process stored since the last wake was sent (any webhook's: they all share the database). */
  let storedSince = 0;
  let sentAt = 0;
  function wake(): void {
    if (waking) {
      again = true;
      return;
    }
    waking = true;
    storedSince = 0;
    sentAt = performance.now();
    temporal.workflow
      .signalWithStart<JobWorkflows['webhookForwarder'], []>('webhookForwarder', {
        workflowId: FORWARDER_WORKFLOW_ID,
        taskQueue: TASK_QUEUES.workflows,
        args: [null],
        signal: capturesStored,
        signalArgs: [],
      })
      .catch(onError)
      .finally(() => setTimeout(next, WAKE_EVERY_MS).unref());
  }
  /**
   * The pause after a wake is over (or, while captures pour in, lasts until BUSY_WAKE_EVERY_MS): the
   * next wake may go.
   */
  function next(): void {
    const elapsed = performance.now() - sentAt;
    const pouring = (storedSince * 1000) / elapsed > BUSY_CAPTURES;
    if (pouring && elapsed < BUSY_WAKE_EVERY_MS) {
      setTimeout(next, BUSY_WAKE_EVERY_MS - elapsed).unref();
      return;
    }
    waking = false;
    if (again) {
      again = false;
      wake();
    }
  }
  return {
    /** `count` captures were stored, some of forwarding webhooks (`forwarding`) or not. */
    afterCapturesStored(count: number, forwarding: boolean): void {
      if (forwarding) wake(); // first: a wake sent now counts from here, these captures included
      storedSince += count;
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
