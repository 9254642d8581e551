// What every capture goes through once its request is read, whoever sent it: a sender at the capture URL
// (api/capture.ts) or a test event the service makes itself (webhook-trigger.ts). The owner's rules pick
// its answer, the capture writer stores it (and tells the live streams, the forwarder and the schema
// checks), and its bytes count against its owner's bound. One path, so a test event is judged, forwarded
// and streamed exactly as a delivery is.
import type { CaptureWriter } from '../../../db/webhooks/capture-writer.ts';
import type { CaptureRecord } from '../../../db/webhooks/webhooks.ts';
import { NotFoundError, RateLimitedError } from '../../../lib/errors.ts';
import { processMetrics } from '../../../lib/metrics.ts';
import { PLAN_LIMITS } from '../../../lib/plans.ts';
import { RuleRequest, type RuleAnswer } from '../../../lib/webhooks/webhook-rules.ts';
import type { WebhookResponse } from '../../../db/schema.ts';
import type { CaptureOwner, CaptureService } from './captures.ts';

export const CAPTURE_PREFIX = '/webhook/';
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Whether the bytes start with UTF-8's byte order mark: text readers drop it, so such a body is kept as base64. */
const startsWithBom = (raw: Buffer) => raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;

/** A request to a capture URL, read whole. */
export interface ArrivedRequest {
  webhookId: string;
  method: string;
  /** The path as sent, `/webhook/<id>` and what follows. */
  path: string;
  /** The query as sent, without its "?"; null when there was no "?". */
  query: string | null;
  /** Lower-case names. */
  headers: Record<string, string>;
  raw: Buffer;
  ipAddress: string;
  /** A browser's CORS preflight: no rule answers it (it gets the CORS answer). */
  preflight?: boolean;
}

/** What the sender gets (null: the default acknowledgement), and the capture as stored. */
export interface Intake {
  answer: WebhookResponse | RuleAnswer | null;
  record: CaptureRecord;
}

/** The sender's 429 when the owner's rules have run for their time (nothing is stored). */
function rulesRefused(owner: CaptureOwner) {
  return (wait: number) => {
    processMetrics().capturesRefused.inc({ plan: owner.plan });
    return new RateLimitedError(
      `This webhook's response rules ran for their owner's ${PLAN_LIMITS[owner.plan].ruleMsPerMinute} ms of ` +
        `this minute on this server (the ${owner.plan} plan); nothing was stored: retry after ${wait} s`,
      wait,
    );
  };
}

export function captureIntake(writer: CaptureWriter, captures: CaptureService) {
  const { ruleBudget } = captures;
  return {
    /** Counts one capture of the webhook from the address (404 unknown, 429 past a bound): before its body is read. */
    admit: captures.admit,

    /** Stores an admitted capture; resolves once it is committed (404 when its webhook went meanwhile). */
    async take(owner: CaptureOwner, arrived: ArrivedRequest): Promise<Intake> {
      const { webhookId, method, path, query, headers, raw } = arrived;
      const { body, encoding } = decodeBody(raw);
      // The first of the owner's rules whose match holds answers (off the database path; compiled at the
      // first capture that runs them), within the owner's share of this thread; the owner's answer (none to
      // a preflight) is known before the capture is stored: its status is recorded.
      let matched = -1;
      let answer: WebhookResponse | RuleAnswer | null = arrived.preflight ? null : owner.response;
      if (owner.rules && !arrived.preflight) {
        const rules = owner.rules;
        const request = new RuleRequest({
          method,
          path: path.slice(CAPTURE_PREFIX.length + webhookId.length) || '/',
          search: query ?? '',
          headers,
          text: encoding === 'utf8' ? body : null,
        });
        // Compiled on first use (after a cache miss or a change), so that compiling is charged too.
        ruleBudget.run(
          owner,
          () => {
            matched = rules.pick(request);
            if (matched !== -1) answer = rules.answer(matched, request);
          },
          rulesRefused(owner),
        );
      }
      const record: CaptureRecord = {
        webhookId,
        method,
        path,
        headers,
        body,
        bodyEncoding: encoding,
        bodySize: raw.length,
        queryParams: query ? JSON.stringify(queryObject(query)) : null,
        // As sent, byte for byte: what forwarding, listen and replay send again.
        queryString: query,
        ipAddress: arrived.ipAddress,
        userAgent: headers['user-agent'] ?? '',
        createdAt: new Date(),
        matchedRule: matched === -1 ? null : matched,
        answeredStatus: answer?.status ?? 200,
      };
      if (!(await writer.write(record))) throw new NotFoundError('Webhook not found');
      // As stored: a UTF-8 body is its bytes, a binary one its base64 (no second pass over the body).
      captures.countBytes(owner, body === null ? 0 : encoding === 'base64' ? body.length : raw.length);
      return { answer, record };
    },
  };
}

export type CaptureIntake = ReturnType<typeof captureIntake>;

/**
 * Text when the bytes are UTF-8 (free of NUL, which Postgres text cannot hold, and not starting with
 * a byte order mark, which some readers drop); else base64, so every body is kept byte for byte.
 */
export function decodeBody(raw: Buffer): { body: string | null; encoding: 'utf8' | 'base64' } {
  if (raw.length === 0) return { body: null, encoding: 'utf8' };
  if (!startsWithBom(raw) && !raw.includes(0)) {
    try {
      return { body: utf8.decode(raw), encoding: 'utf8' };
    } catch {
      // not UTF-8: keep it byte for byte below
    }
  }
  return { body: raw.toString('base64'), encoding: 'base64' };
}

/** Query parameters as an object; a repeated name gives an array of its values. */
export function queryObject(search: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of new URLSearchParams(search)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}
