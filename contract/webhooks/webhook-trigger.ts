// my-webhook-trigger: a signed test event (lib/webhooks/webhook-events/) delivered to one of the caller's webhooks
// as a capture. What it takes besides the webhook, and what it answers.
import { z } from 'zod';
import { TEST_EVENT_PROVIDERS, testEvents, unknownEvent } from '../../lib/webhooks/webhook-events/index.ts';
import { int, str } from '../responses-fields.ts';
import { described } from '../validate.ts';

/** Every provider's events, for the model: `stripe: payment_intent.succeeded, ...; github: push, ...`. */
const catalogue = TEST_EVENT_PROVIDERS.map(
  (p) =>
    `${p}: ${testEvents(p)
      .map((e) => e.event)
      .join(', ')}`,
).join('; ');

/** The sender and its event; an event the sender has not is refused naming `event` and the nearest. */
export const triggerFields = {
  provider: described(
    z.enum(TEST_EVENT_PROVIDERS, {
      error: `must be one of ${TEST_EVENT_PROVIDERS.join(', ')} (the senders of test events)`,
    }),
    "The sender: the webhook's signature scheme when it has one",
  ),
  event: described(
    z.string({ error: 'must be a string' }).min(1, 'is required').max(100, 'must be at most 100 characters'),
    `The event, one of the provider's: ${catalogue}`,
  ),
};

/** The refinement of a body with triggerFields: the event is one of the provider's. */
export function knownEvent(
  body: { provider: (typeof TEST_EVENT_PROVIDERS)[number]; event: string },
  ctx: z.RefinementCtx,
) {
  const problem = unknownEvent(body.provider, body.event);
  if (problem) ctx.addIssue({ code: 'custom', path: ['event'], message: problem });
}

export const webhookTriggerResult = z.object({
  success: z.literal(true),
  webhook_id: str,
  provider: str,
  event: str,
  event_id: str.describe(
    "What the handler tells deliveries apart by: the event's id (Stripe evt_..., Slack Ev..., plain), " +
      "GitHub's delivery GUID, Standard Webhooks' msg_ id",
  ),
  signed: z
    .boolean()
    .describe("Whether it was signed with the webhook's secret (false: the webhook has no signature set)"),
  signature: z
    .object({ status: z.enum(['valid', 'invalid', 'missing']), reason: str })
    .nullable()
    .describe("The webhook's check of the capture, as my-webhook-requests shows it; null: the webhook checks none"),
  answered: z
    .object({ status: int, matched_rule: int.nullable() })
    .describe('What the webhook answered it: its response, or the rule that matched (null: none)'),
  sent: z
    .object({ method: str, path: str, headers: z.record(str, str), body: str })
    .describe('The request as captured'),
  message: str,
});
