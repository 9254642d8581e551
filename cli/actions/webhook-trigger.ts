// netops webhook trigger when it runs (its flags: commands/webhook-trigger.ts).
import type * as webhooks from '../../contract/webhooks/webhooks.ts';
import {
  type TestEventProvider,
  testEvent,
  testEvents,
  unknownEvent,
  unknownProvider,
} from '../../lib/webhooks/webhook-events/index.ts';
import type { Capture } from '../webhooks/captures.ts';
import { type AnswerOf, pathOf } from '../client.ts';
import { webhookOperations as ops } from '../contract.ts';
import { NetworkError, UsageError } from '../errors.ts';
import { asFlags } from '../flag-errors.ts';
import { errorName, sendCapture } from '../webhooks/forward.ts';
import { fields, ms, note, out, print, printJson } from '../output.ts';
import { readSecret } from '../secret-prompt.ts';
import { api } from '../webhooks/webhook-api.ts';
import { table } from '../table.ts';
import { statusText } from './webhook-replay.ts';

type TriggerAnswer = AnswerOf<typeof webhooks.webhookOperations.trigger>;
/** The most of the handler's answer kept and shown (as replay keeps). */
const ANSWER_BYTES = 1024 * 1024;

export interface TriggerFlags {
  webhook?: string;
  to?: string;
  unsigned?: boolean;
  header?: string;
  insecure?: boolean;
  list?: boolean;
  json?: boolean;
}

function list(provider: TestEventProvider | undefined, json: boolean | undefined) {
  const events = testEvents(provider);
  if (json) return printJson({ events });
  print(
    table(
      ['Provider', 'Event', 'What it is'],
      events.map((e) => [e.provider, e.event, e.description]),
    ),
  );
  const [first] = events;
  note(out.dim(`Send one: netops webhook trigger ${first!.provider} ${first!.event} --webhook ID (or --to URL)`));
}

/** The service delivers it to the webhook, signed with the webhook's secret. */
async function toWebhook(id: string, provider: TestEventProvider, event: string, o: TriggerFlags): Promise<void> {
  const answer = await asFlags({ webhook_id: '--webhook', provider: '<provider>', event: '<event>' }, () =>
    api().call<TriggerAnswer>('POST', pathOf(ops.trigger), { json: { webhook_id: id, provider, event } }),
  );
  if (o.json) return printJson(answer);
  const { answered, signature } = answer;
  print(
    fields([
      ['Sent', `${provider} ${event} (${answer.event_id}) to webhook ${id}`],
      [
        'Answered',
        `${statusText(answered.status)}${answered.matched_rule === null ? '' : ` (rule ${answered.matched_rule})`}`,
      ],
      ['Signature', signature ? `${signature.status}: ${signature.reason}` : 'not signed'],
    ]),
  );
  if (!answer.signed)
    note(
      out.dim(`Webhook ${id} has no signature set: netops webhook update ${id} --signature ${provider} signs the next`),
    );
}

/** From this machine to `url`, signed with a secret given here (or not, with --unsigned). */
async function toUrl(url: string, provider: TestEventProvider, event: string, o: TriggerFlags): Promise<void> {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new UsageError(`--to: "${url}" is not an http or https URL`);
  if (o.header !== undefined && provider !== 'hmac-sha256')
    throw new UsageError(`--header: ${provider} names its own signature headers (--header goes with hmac-sha256)`);
  // The API's header-name rule, loaded with zod only when a header is named.
  if (o.header !== undefined && !(await import('../../contract/http-fields.ts')).HEADER_NAME.test(o.header))
    throw new UsageError(`--header: "${o.header}" is not a header name`);
  if (o.unsigned && o.header !== undefined) throw new UsageError('--header: nothing is signed with --unsigned');
  const secret = o.unsigned
    ? null
    : await readSecret(`Signing secret for ${provider}: `, '--to').catch((e: Error) => {
        throw new UsageError(`${e.message}; or send it unsigned with --unsigned`);
      });
  const signing = secret === null ? null : { secret, header: (o.header ?? 'x-signature').toLowerCase() };
  const sample = testEvent(provider, event, { now: new Date(), target: url, signing });
  // Sent as `listen` forwards a capture (cli/webhooks/forward.ts): as it is, to the URL as given (nothing below it).
  const asCaptured = {
    method: 'POST',
    path: '/webhook/-',
    headers: sample.headers,
    body: sample.body,
    body_encoding: 'utf8',
    query_params: null,
    query_string: null,
  } as Capture;
  const ex = await sendCapture(asCaptured, '-', url, { insecure: o.insecure, keepBytes: ANSWER_BYTES }).catch(
    (e: Error) => {
      throw new NetworkError(`webhook trigger ${provider} ${event} to ${url} failed: ${errorName(e)}`);
    },
  );
  if (o.json)
    return printJson({
      provider,
      event,
      event_id: sample.id,
      signed: sample.signed,
      target_url: ex.url,
      sent: { method: ex.method, headers: ex.sentHeaders, body: sample.body },
      response: { status: ex.status, headers: ex.headers, body: ex.body.toString('utf8'), truncated: ex.truncated },
      duration_ms: ex.durationMs,
    });
  print(
    `${provider} ${event} (${sample.id}${sample.signed ? '' : ', unsigned'}) → ${ex.url}: ` +
      `${out.bold(statusText(ex.status))} in ${ms(ex.durationMs)}`,
  );
  const body = ex.body.toString('utf8');
  if (body) print(body + (ex.truncated ? out.dim(' … (truncated)') : ''));
}

export async function trigger(provider: string | undefined, event: string | undefined, o: TriggerFlags): Promise<void> {
  const refused = provider === undefined ? null : unknownProvider(provider);
  if (refused) throw new UsageError(`<provider>: ${refused}`);
  const sender = provider as TestEventProvider | undefined;
  if (o.list || sender === undefined || event === undefined) return list(sender, o.json);
  const unknown = unknownEvent(sender, event);
  if (unknown) throw new UsageError(`<event>: ${unknown}`);
  if (o.to !== undefined && o.webhook !== undefined)
    throw new UsageError('--to and --webhook: give one (the service delivers to a webhook; --to sends from here)');
  if (o.webhook !== undefined) {
    const here = [o.unsigned && '--unsigned', o.header !== undefined && '--header', o.insecure && '--insecure'];
    const misplaced = here.filter(Boolean);
    if (misplaced.length)
      throw new UsageError(`${misplaced.join(', ')}: go with --to (the service signs with the webhook's own secret)`);
    return toWebhook(o.webhook, sender, event, o);
  }
  if (o.to !== undefined) return toUrl(o.to, sender, event, o);
  throw new UsageError(
    "give --webhook ID (the service delivers it, signed with the webhook's secret) or --to URL (sent from here)",
  );
}
