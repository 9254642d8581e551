// netops webhook wait: the first capture matching the filters that arrives (my-webhook-wait), for a
// script that triggers a delivery and then checks it. Exit 0 with the capture, 124 at the timeout
// (timeout(1)'s code). It runs from actions/webhook-wait.ts, loaded then.
import type { Command } from 'commander';
import { filterOptions, type FilterFlags } from './capture-filters.ts';
import { examples, seconds } from './parse.ts';

export function registerWebhookWait(webhook: Command): void {
  filterOptions(
    webhook
      .command('wait')
      .description(
        'Wait for the first capture matching the filters that arrives (or came --since); exit 124 at the timeout',
      )
      .argument('<id>', 'the webhook id'),
    { until: false },
  )
    .option('--timeout <time>', 'how long to wait: 30, 30s, 5m, 1h (default 30s)', seconds('--timeout'), 30)
    .option('--json', 'print the API answer (at the timeout too: request null, timed_out true)')
    .addHelpText(
      'after',
      examples(
        'netops webhook wait wh_123 --method POST --q checkout.session.completed --timeout 2m',
        'stripe trigger checkout.session.completed && netops webhook wait wh_123 --since 1m --json | jq .request.body',
      ),
    )
    .action(async (id: string, o: FilterFlags & { timeout: number; json?: boolean }) =>
      (await import('../actions/webhook-wait.ts')).wait(id, o),
    );
}
