// netops webhook replay when it runs (its flags: commands/webhook-replay.ts).
import type * as webhooks from '../../contract/webhooks/webhooks.ts';
import type { AnswerOf } from '../client.ts';
import { pathOf } from '../client.ts';
import { webhookOperations as ops } from '../contract.ts';
import { NetworkError, UsageError } from '../errors.ts';
import { asFlags } from '../flag-errors.ts';
import { errorName, sendCapture, type Exchange } from '../webhooks/forward.ts';
import { ms, out, print, printJson } from '../output.ts';
import { api, findCapture } from '../webhooks/webhook-api.ts';

type ReplayAnswer = AnswerOf<typeof webhooks.webhookOperations.replay>;
/** The most of a local answer's body kept and shown (the service keeps 64 KiB). */
const ANSWER_BYTES = 1024 * 1024;

export interface ReplayFlags {
  to: string;
  viaService?: boolean;
  insecure?: boolean;
  verbose?: boolean;
  json?: boolean;
}

/** Sends the capture from here; the answer has my-webhook-replay's shape, `sent` the headers with their values. */
async function replayHere(
  id: string,
  requestId: number,
  o: ReplayFlags,
): Promise<{ answer: ReplayAnswer; sent: Record<string, string | number> }> {
  const capture = await findCapture(api(), id, requestId);
  let ex: Exchange;
  try {
    ex = await sendCapture(capture, id, o.to, { insecure: o.insecure, keepBytes: ANSWER_BYTES });
  } catch (e) {
    throw new NetworkError(`webhook replay ${id} ${requestId} to ${o.to} failed: ${errorName(e as Error)}`);
  }
  return {
    sent: ex.sentHeaders,
    answer: {
      success: true,
      request_id: requestId,
      target_url: ex.url,
      sent: {
        method: ex.method,
        header_names: Object.keys(ex.sentHeaders).filter((h) => h !== 'content-length'),
        body_size: ex.bodySize,
      },
      response: { status: ex.status, headers: ex.headers, body: ex.body.toString('utf8'), truncated: ex.truncated },
      duration_ms: ex.durationMs,
    },
  };
}

/** An answer's status, coloured by its class. */
export function statusText(status: number): string {
  const s = String(status);
  return status < 300 ? out.green(s) : status < 500 ? out.yellow(s) : out.red(s);
}

export async function replay(id: string, requestId: number, o: ReplayFlags): Promise<void> {
  if (!URL.canParse(o.to) || !/^https?:$/.test(new URL(o.to).protocol))
    throw new UsageError(`--to: "${o.to}" is not an http or https URL`);
  if (o.viaService && o.insecure) throw new UsageError('--insecure: the service checks certificates itself');
  const { answer, sent } = o.viaService
    ? {
        answer: await asFlags({ webhook_id: '<id>', request_id: '<request-id>', target_url: '--to' }, () =>
          api().call<ReplayAnswer>('POST', pathOf(ops.replay), {
            json: { webhook_id: id, request_id: requestId, target_url: o.to },
          }),
        ),
        sent: undefined,
      }
    : await replayHere(id, requestId, o);
  if (o.json) return printJson(answer);
  const r = answer.response;
  print(`${answer.sent.method} ${answer.target_url} → ${out.bold(statusText(r.status))} in ${ms(answer.duration_ms)}`);
  if (o.verbose) {
    // The service tells the names it sent; from here, the values too.
    const lines = sent ? Object.entries(sent).map(([k, v]) => `${k}: ${v}`) : answer.sent.header_names;
    print(lines.map((l) => out.dim(`> ${l}`)).join('\n'));
    print(
      Object.entries(r.headers)
        .map(([k, v]) => out.dim(`< ${k}: ${v}`))
        .join('\n'),
    );
    print();
  }
  if (r.body) print(r.body + (r.truncated ? out.dim(' … (truncated)') : ''));
}
