// Waits for a capture as jobs, for MCP tasks (webhook_wait_for_request): the API checks the webhook,
// notes where the wait begins (its newest capture now, so nothing stored meanwhile is missed), takes a
// live-stream slot for it and starts the workflow, whose activity waits and keeps the slot
// (activities/webhooks/wait.ts). The answer is my-webhook-wait's, read from the workflow's result.
// my-webhook-wait itself waits in the API process (webhook-live.ts): no job, no Temporal round trip.
import { CancelledFailure, WorkflowFailedError, type Client } from '@temporalio/client';
import type { CaptureFilter } from '../../../db/webhooks/captured-requests.ts';
import { NotFoundError } from '../../../lib/errors.ts';
import { WEBHOOK_WAIT_KIND, type WebhookWaitOutcome } from '../../../lib/jobs/webhooks.ts';
import { PLAN_LIMITS, type Plan } from '../../../lib/plans.ts';
import { newJobId, startJob, workflowIdOf } from '../../../lib/temporal/jobs.ts';
import type { StreamService } from '../streams.ts';
import type { WebhookService } from './webhooks.ts';

export function webhookWaitService({
  temporal,
  streams,
  webhooks,
}: {
  temporal: Client;
  streams: StreamService;
  webhooks: Pick<WebhookService, 'waitStart' | 'captured'>;
}) {
  const handleOf = (publicId: string) => temporal.workflow.getHandle(workflowIdOf(WEBHOOK_WAIT_KIND, publicId));
  /** The wait's outcome, or why it has none (cancelled, or failed). */
  async function outcome(publicId: string): Promise<WebhookWaitOutcome | { error: string }> {
    try {
      return (await handleOf(publicId).result()) as WebhookWaitOutcome;
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
      return { error: err.cause instanceof CancelledFailure ? 'The wait was cancelled.' : 'The wait did not finish.' };
    }
  }
  return {
    outcome,

    /**
     * Starts a wait of `timeoutMs` for the first capture of the caller's webhook matching `filter`
     * (404 for a webhook not theirs; 429 when the plan's live-stream slots are all held); answers
     * the workflow id.
     */
    async start(
      account: { userId: number; plan: Plan },
      webhookId: string,
      filter: Pick<CaptureFilter, 'method' | 'header' | 'text' | 'since'>,
      timeoutMs: number,
    ): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      const { afterId } = await webhooks.waitStart(account.userId, webhookId, filter.since);
      const publicId = newJobId();
      const workflowId = workflowIdOf(WEBHOOK_WAIT_KIND, publicId);
      const lease = await streams.open(account, workflowId);
      try {
        await startJob(temporal, {
          kind: WEBHOOK_WAIT_KIND,
          ownerId: account.userId,
          workflow: 'webhookWait',
          publicId,
          args: [
            {
              userId: account.userId,
              webhookId,
              filter: { ...filter, since: filter.since?.toISOString() },
              afterId,
              deadline,
              slot: { holder: workflowId, limit: PLAN_LIMITS[account.plan].liveStreams },
            },
          ],
          memo: { task: true, webhook_id: webhookId },
        });
      } catch (err) {
        await lease.release().catch(() => {});
        throw err;
      }
      return workflowId;
    },

    /**
     * Frees a cancelled wait's live-stream slot at once. The key-value store away leaves it to expire by
     * itself (its activity, hearing the cancel, frees it too): the cancel has happened all the same.
     */
    freeSlot: (publicId: string, userId: number) =>
      streams.release(userId, workflowIdOf(WEBHOOK_WAIT_KIND, publicId)).catch(() => {}),

    /** my-webhook-wait's answer for an ended wait; a wait whose webhook went, or that was cancelled, says so. */
    async answer(publicId: string, userId: number): Promise<Record<string, unknown>> {
      const o = await outcome(publicId);
      if ('error' in o) return { success: false, error: o.error };
      if (o.gone) return { success: false, error: `No webhook ${o.webhookId} among yours (it was deleted)` };
      if (o.requestId === null) return { success: true, webhook_id: o.webhookId, request: null, timed_out: true };
      try {
        return {
          success: true,
          webhook_id: o.webhookId,
          request: await webhooks.captured(userId, o.webhookId, o.requestId),
          timed_out: false,
        };
      } catch (err) {
        if (err instanceof NotFoundError) return { success: false, error: err.message };
        throw err;
      }
    },
  };
}

export type WebhookWaitService = ReturnType<typeof webhookWaitService>;
