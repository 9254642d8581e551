// A load test's replay (contract/load/load-replay.ts) as the sequence its shards send
// (domain/load/replay.ts): the caller's captures of one webhook, oldest first, or a HAR's entries in
// the order they started; each request's method, headers (without those of the connection and those
// the client sets) and body byte for byte, to the target with the request's path and query appended.
import type { Kysely } from 'kysely';
import { listCapturedRequestsWithin } from '../../../db/webhooks/captured-requests.ts';
import type { Database } from '../../../db/schema.ts';
import { replayName } from '../../../domain/load/replay.ts';
import { InvalidInputError, PlanLimitError } from '../../../lib/errors.ts';
import type { LoadTestConfig, ReplayRequest } from '../../../lib/jobs/load-test.ts';
import { CAPTURE_KEEP_PER_WEBHOOK, MAX_TEST_SECONDS, PLAN_LIMITS, type Plan } from '../../../lib/plans.ts';
import { appendedUrl, resentHeaders, resentRequest } from '../../../lib/webhooks/webhook-resend.ts';
import type { HarEntry } from '../../../contract/load/load-replay.ts';
import type { StartBody } from '../../../contract/load/load-test-start.ts';
import { LOAD_USER_AGENT, testHeaders } from './load-test-input.ts';
import type { WebhookRequestService } from '../webhooks/webhook-requests.ts';

/** The most body bytes one replay holds (a HAR's own limit, and the captures'). */
export const MAX_REPLAY_BODY_BYTES = 10 * 1024 * 1024;
/**
 * The most header bytes one replay holds, the test's own (and its credentials) counted on every
 * request: unbounded, 10,000 tiny entries with 9 MB of the test's own headers made a sequence of
 * 90 GB, which held the event loop four and a half minutes before it failed to be stored.
 */
export const MAX_REPLAY_HEADER_BYTES = 10 * 1024 * 1024;

/** A header set's bytes, names and values. */
export const headerBytes = (headers: Record<string, string>) =>
  Object.entries(headers).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
/**
 * How long a replay at speed 0 without a loop may take when the test does not say: it ends sooner when
 * every user is done.
 */
const DEFAULT_PASS_SECONDS = 60;
/** After a timed replay's last request, the time its answers get before the test's window closes. */
const ANSWER_SECONDS = 10;

export interface ReplaySequence {
  requests: ReplayRequest[];
  config: NonNullable<LoadTestConfig['replay']>;
  /** The test's length in seconds: as given, or what the sequence takes. */
  testDuration: number;
}

/** A replay whose requests' bodies come to `howMuch`: past the limit. */
const tooLarge = (howMuch: string, har: boolean) =>
  new InvalidInputError(
    `replay: the requests' bodies come to ${howMuch}: replay fewer${har ? '' : ' (ids, filter)'}`,
    'replay',
  );

/** A recorded request before its time is made relative and the test's own headers are added. */
interface Recorded {
  at: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

export function loadReplayService({
  db,
  captures,
}: {
  db: Kysely<Database>;
  captures: Pick<WebhookRequestService, 'scoped'>;
}) {
  /** The caller's captures the replay names, oldest first (404 for a webhook not theirs). */
  async function fromCaptures(userId: number, b: StartBody, target: URL): Promise<Recorded[]> {
    const r = b.replay!;
    const f = r.filter ?? {};
    const { webhook, filter } = await captures.scoped(userId, r.webhook_id!, {
      method: f.method,
      header: f.header,
      text: f.q,
      since: f.since,
      until: f.until,
    });
    // Read within the bodies' bound as stored: a binary body is stored as base64, at most 4/3 of its bytes
    // and 4 more, so past this bound the bodies are over the limit whatever their kinds.
    const { rows, cut } = await listCapturedRequestsWithin(
      db,
      webhook.id,
      CAPTURE_KEEP_PER_WEBHOOK,
      { ...filter, ...(r.ids ? { ids: r.ids } : {}), oldestFirst: true },
      Math.ceil((MAX_REPLAY_BODY_BYTES * 4) / 3) + 4 * CAPTURE_KEEP_PER_WEBHOOK,
    );
    if (cut) throw tooLarge(`more than ${MAX_REPLAY_BODY_BYTES} bytes`, false);
    if (r.ids) {
      const found = new Set(rows.map((row) => row.id));
      const missing = r.ids.find((id) => !found.has(id));
      if (missing !== undefined)
        throw new InvalidInputError(
          `replay.ids: no capture ${missing} among those webhook ${r.webhook_id} keeps` +
            `${r.filter ? ' and the filter picks' : ''}`,
          'replay.ids',
        );
    }
    if (!rows.length)
      throw new InvalidInputError(
        `replay: webhook ${r.webhook_id} keeps no capture${r.filter ? ' the filter picks' : ''} to replay`,
        'replay',
      );
    return rows
      .sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime() || x.id - y.id)
      .map((row) => ({ at: row.createdAt.getTime(), ...resentRequest(row, r.webhook_id!, target.href) }));
  }

  return {
    /**
     * The sequence a test replays, within the limits: bodies of at most 10 MB in all, headers counted
     * with the test's own (its credentials) on every request, a length within the test's and the plan's.
     * Stored with the test: without the test's own headers, which the shards put on each request from
     * the workflow's input (encrypted there; the database would keep them in clear).
     */
    async sequence(userId: number, plan: Plan, b: StartBody, target: URL): Promise<ReplaySequence> {
      const r = b.replay!;
      const recorded = r.har
        ? r.har.log.entries
            .map((entry, i) => ({ entry, i, at: Date.parse(entry.startedDateTime) }))
            .sort((x, y) => x.at - y.at || x.i - y.i)
            .map(({ entry, at }) => harRequest(entry, at, target))
        : await fromCaptures(userId, b, target);
      const bytes = recorded.reduce((n, q) => n + (q.body?.length ?? 0), 0);
      if (bytes > MAX_REPLAY_BODY_BYTES) throw tooLarge(`${bytes} bytes, more than ${MAX_REPLAY_BODY_BYTES}`, !!r.har);
      const own = testHeaders(b);
      const ownBytes = headerBytes({ 'user-agent': LOAD_USER_AGENT, ...own });
      const headers = recorded.reduce((n, q) => n + headerBytes(q.headers), 0) + recorded.length * ownBytes;
      if (headers > MAX_REPLAY_HEADER_BYTES)
        throw new InvalidInputError(
          `replay: the requests' headers come to ${headers} bytes, the test's own (${ownBytes} bytes) ` +
            `on each of the ${recorded.length}, more than ${MAX_REPLAY_HEADER_BYTES}: ` +
            `send fewer or shorter headers, or replay fewer requests${r.har ? '' : ' (ids, filter)'}`,
          'replay',
        );
      const first = recorded[0]!.at;
      const requests = recorded.map((q) => ({
        at: q.at - first,
        method: q.method,
        path: q.url.slice(target.origin.length),
        headers: { 'user-agent': LOAD_USER_AGENT, ...q.headers },
        ...(q.body ? { body: q.body.toString('base64') } : {}),
      }));
      const span = requests.at(-1)!.at;
      let testDuration = b.testDuration;
      if (!testDuration) {
        // Without a length given: a timed replay's own (plus time for the last answers), or a pass at speed 0.
        const limit = PLAN_LIMITS[plan].loadTestSeconds;
        if (r.speed === 0) testDuration = Math.min(DEFAULT_PASS_SECONDS, limit);
        else {
          testDuration = Math.max(10, Math.ceil(span / r.speed / 1000) + ANSWER_SECONDS);
          if (testDuration > Math.min(limit, MAX_TEST_SECONDS))
            throw new PlanLimitError(
              `replay.speed: the requests span ${Math.ceil(span / 1000)} s, ${testDuration} s with their ` +
                `answers at speed ${r.speed}: more than the ${Math.min(limit, MAX_TEST_SECONDS)} s a test ` +
                `may last on the ${plan} plan; raise the speed or replay fewer`,
            );
        }
      }
      return {
        requests,
        testDuration,
        config: {
          source: r.har ? 'har' : 'webhook',
          ...(r.webhook_id ? { webhook_id: r.webhook_id } : {}),
          requests: requests.length,
          distinct_requests: new Set(requests.map(replayName)).size,
          span_ms: span,
          speed: r.speed,
          loop: r.loop,
        },
      };
    },
  };
}

/** A HAR entry as a recorded request to `target` (HAR 1.2's postData: text, or params as a form). */
function harRequest(entry: HarEntry, at: number, target: URL): Recorded {
  const { request } = entry;
  const url = new URL(request.url);
  const post = request.postData;
  const body =
    post?.text !== undefined
      ? Buffer.from(post.text, post.encoding === 'base64' ? 'base64' : 'utf8')
      : post?.params
        ? Buffer.from(new URLSearchParams(post.params.map((p) => [p.name, p.value ?? ''])).toString())
        : undefined;
  const headers = resentHeaders(request.headers.map((h) => [h.name, h.value]));
  if (body && post?.mimeType && !('content-type' in headers)) headers['content-type'] = post.mimeType;
  return { at, method: request.method, url: appendedUrl(target, url.pathname, url.search.slice(1)), headers, body };
}

export type LoadReplayService = ReturnType<typeof loadReplayService>;
