// Webhooks and what they captured.
import { HEADER_NAME, HEADER_NAME_TOKEN } from '../http-fields.ts';
import { z } from 'zod';
import { created, get, ok, operations, post } from '../operation.ts';
import * as R from './responses-webhooks.ts';
import { described } from '../validate.ts';
import { wholeNumberParam } from '../input-fields.ts';
import { SETTING_NAMES, replayFields, settingFields, webhookId, webhookIdField } from './webhook-fields.ts';
import { knownEvent, triggerFields, webhookTriggerResult } from './webhook-trigger.ts';

export { webhookIdField };
const NAME_OR_NAME_VALUE = new RegExp(`^${HEADER_NAME_TOKEN}+(:.*)?$`, 's');
export const requestsQuery = z.object({ webhook_id: webhookId });
/**
 * How far back (in row ids, which every webhook shares) a live stream (and a client resuming one: the
 * CLI's listen) looks for captures that committed after later ones. The batches in flight at once are
 * at most 8 of 32 rows per API process, committed within milliseconds of each other, so 2,000 ids
 * cover several processes; a wider window made every look of an active stream read most of its
 * webhook's kept rows again (bench:soak: 500 active streams, 20,000 ids, another user's GET p99 over a
 * second).
 */
export const OUT_OF_ORDER_WINDOW = 2_000;

const isoTime = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 time, e.g. 2026-11-23T10:00:00Z' })
  .transform((t) => new Date(t));
/** my-webhook-requests: every filter given must hold; newest first, a page at a time. */
export const searchQuery = requestsQuery.extend({
  method: z
    .string()
    .regex(/^[A-Za-z]{1,20}$/, 'must be an HTTP method')
    .transform((m) => m.toUpperCase())
    .optional(),
  header: z
    .string()
    .max(1000, 'must be at most 1000 characters')
    .regex(NAME_OR_NAME_VALUE, 'must be name or name:value')
    .refine((v) => !v.includes('\0'), 'must not contain NUL')
    .transform((h) => {
      const at = h.indexOf(':');
      return at < 0 ? { name: h.toLowerCase() } : { name: h.slice(0, at).toLowerCase(), value: h.slice(at + 1).trim() };
    })
    .optional(),
  q: z
    .string()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .refine((v) => !v.includes('\0'), 'must not contain NUL')
    .optional(),
  since: isoTime.optional(),
  until: isoTime.optional(),
  limit: wholeNumberParam(1, 500).default(500),
  cursor: z.string().max(100).optional(),
  schema: described(
    z.enum(['valid', 'invalid'], { error: "must be valid or invalid (against the webhook's JSON Schema)" }).optional(),
    "Only captures whose body is valid (or invalid) against the webhook's JSON Schema",
  ),
});
/** my-webhook-requests' query, and (the MCP tool's only) whether to answer headers and bodies. */
export const requestsArgs = searchQuery.extend({
  include_bodies: described(
    z.boolean({ error: 'must be true or false' }).optional(),
    'false: each capture without its headers and body (body_size stays), for a light listing',
  ),
});
/** A reconnecting Server-Sent Events client sends the last event id it received: the stream resumes after it. */
export const resumeHeaders = z.object({
  'last-event-id': z
    .string()
    .regex(/^\d{1,15}$/, 'must be the id of an event this stream sent')
    .transform(Number)
    .optional(),
});
export const deleteBody = z.strictObject({ webhook_id: described(webhookIdField, 'The id of the webhook to delete') });

export const createBody = z.preprocess(
  (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {}),
  z.object(settingFields).strict(),
);
export const updateBody = z
  .object({ webhook_id: webhookId, ...settingFields })
  .strict()
  .refine((b) => SETTING_NAMES.some((k) => b[k] !== undefined), {
    message: `give at least one of ${SETTING_NAMES.join(', ')} (null removes one)`,
    path: ['response'],
  });

export const replayBody = z.object(replayFields).strict();
export const triggerBody = z
  .object({ webhook_id: webhookId, ...triggerFields })
  .strict()
  .superRefine(knownEvent);
/**
 * my-webhook-wait: the search's filters, and how long to wait. Strict: a mistyped filter would
 * otherwise wait for any capture.
 */
export const waitQuery = searchQuery
  .omit({ limit: true, cursor: true, until: true, schema: true })
  .extend({
    timeout: described(
      wholeNumberParam(1, 120, { of: 'seconds', range: 'must be from 1 to 120 seconds' }).default(30),
      'Seconds, 1 to 120 (default 30)',
    ),
  })
  .strict();
const captureId = z.coerce
  .number({ error: 'must be the id of a captured request' })
  .int('must be the id of a captured request')
  .min(1, 'must be the id of a captured request');
/** my-webhook-diff: two captures of one webhook, and the headers to leave out (comma-separated; empty: none). */
export const diffQuery = z
  .object({
    webhook_id: webhookId,
    a: described(captureId, 'The id of the first capture'),
    b: described(captureId, 'The id of the capture to compare it with'),
    ignore_headers: described(
      z
        .string()
        .max(2000, 'must be at most 2000 characters')
        .transform((v) =>
          v
            .split(',')
            .map((h) => h.trim().toLowerCase())
            .filter(Boolean),
        )
        .refine((names) => names.every((h) => HEADER_NAME.test(h)), 'must be header names, separated by commas')
        .optional(),
      'Header names to leave out, comma-separated',
    ),
  })
  .strict();
export const exportQuery = searchQuery
  .omit({ limit: true, cursor: true, schema: true })
  .extend({ format: z.enum(['json', 'har'], { error: 'must be json or har' }).default('json') });

const path = (name: string) => `/network/${name}`;
export const webhookOperations = operations('Webhooks', {
  create: post(path('my-webhook-create'), {
    summary: 'Create a webhook and its capture URL (optionally with the response its senders get)',
    body: createBody,
    success: created(R.webhookCreateResult, 'Created'),
    errors: [400, 403],
  }),
  remove: post(path('my-webhook-delete'), {
    summary: 'Delete a webhook and what it captured',
    body: deleteBody,
    success: ok(R.webhookDeleteResult, 'Deleted'),
    errors: [400, 404],
  }),
  list: get(path('my-webhooks'), {
    summary: 'List your webhooks with request counts',
    success: ok(R.webhookListResult, 'Your webhooks'),
    errors: [],
  }),
  update: post(path('my-webhook-update'), {
    summary:
      "Set what a webhook answers its senders, how its captures' signatures are checked, " +
      'where they are forwarded and how long they are kept (null: the default, none)',
    body: updateBody,
    success: ok(R.webhookUpdateResult, 'Updated'),
    errors: [400, 403, 404],
  }),
  requests: get(path('my-webhook-requests'), {
    summary:
      'Read the captured requests of a webhook, newest first; filter by method, header, body text, ' +
      "time and whether the body is valid against the webhook's JSON Schema; page with cursor",
    query: searchQuery,
    success: ok(R.webhookRequestsResult, 'Captured requests'),
    errors: [400, 404],
  }),
  wait: get(path('my-webhook-wait'), {
    summary:
      'Wait for the first capture matching the filters (method, header, q) that arrives after the call, ' +
      'or since `since`: answered when it arrives, ' +
      'or with request null and timed_out true after `timeout` seconds (1-120, default 30)',
    query: waitQuery,
    success: ok(R.webhookWaitResult, 'The capture, or null at the timeout'),
    errors: [400, 404, 429],
  }),
  export: get(path('my-webhook-export'), {
    summary:
      'Every kept capture of a webhook (or those matching the filters of my-webhook-requests) ' +
      'as one JSON or HAR 1.2 file, streamed',
    query: exportQuery,
    success: ok(
      null,
      'application/json: {success, webhook_id, exported_at, requests} as my-webhook-requests answers them; ' +
        'with format=har a HAR 1.2 document (application/json) whose entries are the captured requests',
    ),
    errors: [400, 404],
  }),
  events: get(path('my-webhook-requests/events'), {
    summary: 'New captured requests as Server-Sent Events',
    query: requestsQuery,
    headers: resumeHeaders,
    success: ok(
      null,
      'text/event-stream: `requests` events (the shape of my-webhook-requests, ' +
        'with the highest capture id sent as the event id), `end` when the webhook is deleted. ' +
        'With Last-Event-ID, only captures after that id.',
    ),
    errors: [400, 404],
  }),
  trigger: post(path('my-webhook-trigger'), {
    summary:
      'Deliver a test event to a webhook as a capture: a sample of a common event of Stripe, GitHub, Slack, ' +
      "Standard Webhooks or a plain HMAC sender, signed with the webhook's secret as that sender signs",
    body: triggerBody,
    success: ok(webhookTriggerResult, 'Delivered: how the webhook judged and answered it'),
    errors: [400, 404, 429],
  }),
  replay: post(path('my-webhook-replay'), {
    summary: 'Send a captured request again, byte for byte, to a URL you name, and read its answer',
    body: replayBody,
    success: ok(R.webhookReplayResult, "The target's answer"),
    errors: [400, 404, 502, 504],
  }),
  diff: get(path('my-webhook-diff'), {
    summary:
      'What changed between two captures of a webhook: method, path, query and headers by name ' +
      '(added, removed, changed; headers that differ on every delivery left out ' +
      'unless ignore_headers names others), and the body: JSON by pointer, text by lines',
    query: diffQuery,
    success: ok(R.webhookDiffResult, 'The differences'),
    errors: [400, 404, 504],
  }),
});
