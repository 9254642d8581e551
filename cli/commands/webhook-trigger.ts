// netops webhook trigger: a test event of a sender (Stripe, GitHub, Slack, Standard Webhooks, a plain
// HMAC; lib/webhooks/webhook-events/), to exercise a handler with what that sender would send. With --webhook the
// service delivers it to one of your webhooks, signed with the webhook's secret, which only the service
// knows (my-webhook-trigger); with --to it goes from this machine to a URL (your local handler, as
// `listen` forwards), signed with a secret you type or pipe, never one given as a flag's value. It runs
// from actions/webhook-trigger.ts, loaded then.
import type { Command } from 'commander';
import type { TriggerFlags } from '../actions/webhook-trigger.ts';
import { TEST_EVENT_PROVIDERS } from '../contract.ts';
import { examples } from './parse.ts';

export function registerWebhookTrigger(webhook: Command): void {
  webhook
    .command('trigger')
    .description(
      'Send a signed test event of Stripe, GitHub, Slack, Standard Webhooks or a plain HMAC sender: ' +
        'to a webhook (the service signs it with its secret) or from here to a URL',
    )
    .argument('[provider]', `the sender: ${TEST_EVENT_PROVIDERS.join(', ')}`)
    .argument('[event]', 'its event (without one: the list)')
    .option('--webhook <id>', "deliver it to this webhook, signed with the webhook's secret (the service sends it)")
    .option('--to <url>', 'send it from this machine to this URL, signed with a secret asked for or read from stdin')
    .option('--unsigned', 'with --to: send it without a signature')
    .option('--header <name>', 'with --to and hmac-sha256: the header of the digest (default X-Signature)')
    .option('--insecure', 'with --to: accept a self-signed https certificate')
    .option('--list', 'list the events (of the provider, when given)')
    .option('--json', 'print the answer (or the list) as JSON')
    .addHelpText(
      'after',
      examples(
        'netops webhook trigger --list',
        'netops webhook trigger stripe payment_intent.succeeded --webhook wh_123',
        'echo "$GITHUB_WEBHOOK_SECRET" | netops webhook trigger github push --to http://localhost:4000/github',
      ),
    )
    .action(async (provider: string | undefined, event: string | undefined, o: TriggerFlags) =>
      (await import('../actions/webhook-trigger.ts')).trigger(provider, event, o),
    );
}
