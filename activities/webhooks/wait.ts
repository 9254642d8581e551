// The network pool's wait for a capture (an MCP task's wait: workflows/webhooks.ts `webhookWait`): the
// same looks as my-webhook-wait (domain/webhooks/capture-wait.ts), woken by the notification every process hears,
// keeping the live-stream slot the API took for it until it ends. It heartbeats while it waits: a
// cancelled task's wait hears it at its next heartbeat sent (the API has freed the slot already), and
// a lost worker's wait is retried elsewhere until the same deadline.
import { Context } from '@temporalio/activity';
import type { Kysely } from 'kysely';
import { firstKeptCapture } from '../../db/webhooks/capture-retention.ts';
import type { Database } from '../../db/schema.ts';
import { findOwnedWebhook } from '../../db/webhooks/webhooks.ts';
import { captureWatcher, waitForCapture } from '../../domain/webhooks/capture-wait.ts';
import type { WebhookWaitInput, WebhookWaitOutcome } from '../../lib/jobs/webhooks.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { holding, streamSlot } from '../../lib/concurrency/stream-slots.ts';

/** How often a wait heartbeats (the SDK sends them at most every 0.8 x the timeout workflows/webhooks.ts gives). */
export const WAIT_HEARTBEAT_MS = 1000;

export function createWebhookWaitActivities({ db, kv }: { db: Kysely<Database>; kv: KvStore }) {
  const watch = captureWatcher(kv);
  return {
    async waitForCapture(input: WebhookWaitInput): Promise<WebhookWaitOutcome> {
      const ctx = Context.current();
      const filter = { ...input.filter, since: input.filter.since ? new Date(input.filter.since) : undefined };
      const slot = streamSlot(kv, input.userId, input.slot.holder, input.slot.limit);
      // A retried attempt (its worker lost) takes the slot again: the same holder, so never a second one.
      await slot.renew().catch(() => {});
      const beat = setInterval(() => ctx.heartbeat(), WAIT_HEARTBEAT_MS);
      let gone = false;
      try {
        const found = await holding(slot, (lost) =>
          waitForCapture({
            watch,
            webhookId: input.webhookId,
            deadline: input.deadline,
            signal: AbortSignal.any([ctx.cancellationSignal, lost]),
            look: async () => {
              const webhook = await findOwnedWebhook(db, input.userId, input.webhookId);
              if (!webhook) {
                gone = true;
                return 0;
              }
              return (await firstKeptCapture(db, webhook, filter, input.afterId))?.id ?? null;
            },
          }),
        );
        // A cancelled wait fails as cancelled (the workflow's end says so), not as a wait in vain.
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
        const webhookId = input.webhookId;
        return gone ? { webhookId, requestId: null, gone: true } : { webhookId, requestId: found };
      } finally {
        clearInterval(beat);
      }
    },
  };
}

export type WebhookWaitActivities = ReturnType<typeof createWebhookWaitActivities>;
