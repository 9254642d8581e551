// A wait for a capture as a task: done when a capture came (or the time ran out); failed when its
// webhook went. Cancelling it also frees its live-stream slot.
import { WEBHOOK_WAIT_KIND } from '../../../lib/jobs/webhooks.ts';
import { cancelWorkflow, fromExecution, type TaskDeps, type TaskRules } from './task-rules.ts';

export function webhookWaitTask({ temporal, webhookWaits }: TaskDeps): TaskRules {
  return {
    async view(id, _userId, execution) {
      const status = fromExecution(execution);
      if (status === 'working') return { status, statusMessage: 'waiting for a matching capture' };
      if (status !== 'completed') return { status, statusMessage: execution.toLowerCase() };
      const o = await webhookWaits.outcome(id);
      if ('error' in o || o.gone) return { status: 'failed', statusMessage: 'failed: the webhook was deleted' };
      return {
        status,
        statusMessage: o.requestId === null ? 'timed out: no matching capture' : `captured request ${o.requestId}`,
        progress: 100,
      };
    },
    result: (id, userId) => webhookWaits.answer(id, userId),
    async cancel(id, userId) {
      await cancelWorkflow(temporal, WEBHOOK_WAIT_KIND, id);
      await webhookWaits.freeSlot(id, userId);
    },
  };
}
