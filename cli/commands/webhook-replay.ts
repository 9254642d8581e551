// netops webhook replay: a capture sent again, byte for byte, to a URL, and the answer shown. From this
// machine by default (as `listen` forwards: localhost, a VPN, a private network are all reachable, and
// the service's SSRF guard is not in the way), or by the service with --via-service (my-webhook-replay).
// It runs from actions/webhook-replay.ts, loaded then.
import type { Command } from 'commander';
import type { ReplayFlags } from '../actions/webhook-replay.ts';
import { examples, positiveInt } from './parse.ts';

export function registerWebhookReplay(webhook: Command): void {
  webhook
    .command('replay')
    .description('Send a captured request again, byte for byte, from this machine to a URL, and show the answer')
    .argument('<id>', 'the webhook id')
    .argument('<request-id>', 'the capture id (netops webhook requests)', positiveInt('<request-id>'))
    .requiredOption('--to <url>', 'where to send it: the path below the capture URL and the query are appended')
    .option('--via-service', 'the service sends it (the URL must be public: its SSRF guard refuses private ones)')
    .option('--insecure', 'accept a self-signed https certificate (sent from here only)')
    .option('--verbose', 'show the headers sent and received')
    .option('--json', 'print the answer as my-webhook-replay answers it')
    .addHelpText(
      'after',
      examples(
        'netops webhook replay wh_123 42 --to http://localhost:4000/webhooks',
        'netops webhook replay wh_123 42 --to https://staging.example.com/hooks --via-service',
      ),
    )
    .action(async (id: string, requestId: number, o: ReplayFlags) =>
      (await import('../actions/webhook-replay.ts')).replay(id, requestId, o),
    );
}
