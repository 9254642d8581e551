// MCP tool: deliver a signed test event to one of the user's webhooks (the REST my-webhook-trigger's
// answer, checked by its schema): for an assistant that sets up a handler and wants to see it judged.
import type { McpServer } from '@modelcontextprotocol/server';
import { webhookTriggerResult } from '../../../contract/webhooks/webhook-trigger.ts';
import { triggerBody } from '../../../contract/webhooks/webhooks.ts';
import type { WebhookService } from '../../services/webhooks/webhooks.ts';
import { toolInput, toolOutput, validate } from '../../../contract/validate.ts';
import { TOOL_HINTS, type Run } from '../run.ts';

export function registerWebhookTriggerTool(
  server: McpServer,
  run: Run,
  trigger: NonNullable<WebhookService['trigger']>,
  userId: number,
  /** The caller's address, recorded as the capture's. */
  from: string,
): void {
  server.registerTool(
    'webhook_trigger',
    {
      title: 'Send a test event to a webhook',
      description:
        'Delivers a realistic sample event of Stripe, GitHub, Slack, Standard Webhooks or a ' +
        "plain HMAC sender to one of your webhooks, signed with the webhook's secret as that " +
        'sender signs, as a capture: its rules answer it, its signature and schema checks judge ' +
        "it, it is forwarded and streamed like any delivery. The provider must be the webhook's " +
        'signature scheme when it has one; a webhook without one gets the event unsigned. ' +
        'Answers the signature check, the status the webhook answered and the request as sent.',
      // The sender and event as the SDK checked them before (their refusals worded as a bad argument's).
      inputSchema: toolInput(triggerBody.shape, ['provider', 'event']),
      outputSchema: toolOutput(webhookTriggerResult),
      annotations: { title: 'Send a test event to a webhook', ...TOOL_HINTS.webhook_trigger },
    },
    (args) =>
      run(
        'webhook_trigger',
        async () => trigger(userId, validate(triggerBody, args, 'arguments'), from),
        (o) => o.message,
      ),
  );
}
