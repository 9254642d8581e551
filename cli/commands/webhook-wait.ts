// netops webhook wait: the first capture matching the filters that arrives (my-webhook-wait), for a
// script that triggers a delivery and then checks it. Exit 0 with the capture, 124 at the timeout
// (timeout(1)'s code). The endpoint waits at most 120 s a call: a longer --timeout asks again, with
// `since` the first call's start on the service's clock, so a capture between two calls is not missed.
import type { Command } from 'commander';
import { waitQuery, webhookOperations as ops } from '../../api/schemas/webhooks.ts';
import { captureView, type Capture } from '../captures.ts';
import { pathOf } from '../client.ts';
import { TimedOut, UsageError } from '../errors.ts';
import { asFlags, checked } from '../flag-errors.ts';
import { note, out, print, printJson } from '../output.ts';
import { api } from '../webhook-api.ts';
import { FILTER_FLAGS, filterOptions, filterQuery, type FilterFlags } from './capture-filters.ts';
import { examples, seconds } from './parse.ts';

/** The longest one call of my-webhook-wait waits (its `timeout`, seconds). */
const MOST_PER_CALL = 120;

interface WaitAnswer {
  success: true;
  webhook_id: string;
  request: Capture | null;
  timed_out: boolean;
}

/** The service's time when a call that took `tookMs` began, from its answer's Date (whole seconds: never later). */
function startOnServer(res: Response, tookMs: number, localStart: number): string {
  const date = Date.parse(res.headers.get('date') ?? '');
  return new Date((Number.isFinite(date) ? date : localStart - 2000) - tookMs).toISOString();
}

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
    .action(async (id: string, o: FilterFlags & { timeout: number; json?: boolean }) => {
      if (o.timeout < 1) throw new UsageError('--timeout: must be at least 1 second');
      const c = api();
      const flags = { ...FILTER_FLAGS, timeout: '--timeout' };
      const ends = Date.now() + o.timeout * 1000;
      let since = o.since;
      note(out.dim(`Waiting up to ${o.timeout} s for a capture of ${id}...`));
      for (;;) {
        const timeout = Math.max(1, Math.min(MOST_PER_CALL, Math.ceil((ends - Date.now()) / 1000)));
        const query = { webhook_id: id, ...filterQuery(o), since, timeout };
        checked(waitQuery, query, 'query', flags);
        const began = Date.now();
        const res = await asFlags(flags, () =>
          c.send('GET', pathOf(ops.wait, {}, query), {
            open: true,
            signal: AbortSignal.timeout((timeout + 30) * 1000),
          }),
        );
        const answer = (await res.json()) as WaitAnswer;
        if (answer.request) {
          if (o.json) return printJson(answer);
          return print(captureView(answer.request, id));
        }
        if (ends - Date.now() < 1000) {
          if (o.json) printJson(answer);
          throw new TimedOut(`webhook wait ${id}: no capture matched within ${o.timeout} s`);
        }
        since ??= startOnServer(res, Date.now() - began, began);
      }
    });
}
