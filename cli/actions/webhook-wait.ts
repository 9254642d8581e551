// netops webhook wait when it runs (its flags: commands/webhook-wait.ts). The endpoint waits at most
// 120 s a call: a longer --timeout asks again, with `since` the first call's start on the service's
// clock, so a capture between two calls is not missed.
import { captureView, type Capture } from '../webhooks/captures.ts';
import { pathOf } from '../client.ts';
import { webhookOperations as ops } from '../contract.ts';
import { TimedOut, UsageError } from '../errors.ts';
import { asFlags } from '../flag-errors.ts';
import { note, out, print, printJson } from '../output.ts';
import { api, webhookSchemas } from '../webhooks/webhook-api.ts';
import { FILTER_FLAGS, filterQuery, type FilterFlags } from '../commands/capture-filters.ts';

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

export async function wait(id: string, o: FilterFlags & { timeout: number; json?: boolean }): Promise<void> {
  if (o.timeout < 1) throw new UsageError('--timeout: must be at least 1 second');
  const c = api();
  const flags = { ...FILTER_FLAGS, timeout: '--timeout' };
  const { checked, waitQuery } = await webhookSchemas();
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
}
