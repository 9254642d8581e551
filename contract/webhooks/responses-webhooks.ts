// The answers about webhooks and what they captured (spec/interface.md), as every door (REST, MCP,
// export) gives them.
import { z } from 'zod';
import { int, num, str } from '../responses-fields.ts';

const answer = z.object({ status: int, headers: z.record(str, str), body: str, delay_ms: int });
const webhookResponse = answer
  .nullable()
  .describe('What senders get when no rule answers; null: the default JSON acknowledgement');
const valueTest = z.object({ equals: str.optional(), present: z.boolean().optional(), regex: str.optional() });
const webhookRules = z
  .array(
    z.object({
      match: z.object({
        method: z.array(str).optional(),
        path: str.optional(),
        query: z.record(str, valueTest).optional(),
        header: z.record(str, valueTest).optional(),
        body: z
          .object({
            pointer: str.optional(),
            equals: z.json().optional(),
            exists: z.boolean().optional(),
            regex: str.optional(),
          })
          .optional(),
      }),
      response: answer,
    }),
  )
  .describe("The response rules in order: the first whose match holds answers (its index is a capture's matched_rule)");
const webhookSignature = z
  .object({ scheme: str, header: str })
  .nullable()
  .describe("How captures' signatures are checked (the secret is never shown); null: not checked");
/** What an owner sets on a webhook, as every door (REST, MCP) answers it. */
export const webhookSettings = {
  response: webhookResponse,
  rules: webhookRules,
  schema: z
    .record(str, z.unknown())
    .nullable()
    .describe("The JSON Schema (draft 2020-12) its captures' bodies are checked against; null: none"),
  signature: webhookSignature,
  forward_url: str
    .nullable()
    .describe('Where each new capture is passed on (its delivery shows in my-webhook-requests); null: not forwarded'),
  retention: z
    .object({ max_requests: int, max_age_days: int })
    .describe("How many captures the webhook keeps, and for how many days (the plan's defaults unless set)"),
};
const webhook = z.object({
  id: int,
  webhook_id: str,
  webhook_url: str,
  request_count: int,
  created_at: z.iso.datetime(),
  ...webhookSettings,
});
const deliveryAttempt = z.object({
  attempt: int,
  at: z.iso.datetime(),
  response_status: int.nullable(),
  duration_ms: num,
  error: str.nullable(),
});
/** One captured request as every door (REST, MCP, export) answers it. */
export const capturedRequest = z.object({
  id: int,
  method: str,
  path: str.describe('The whole path the sender called: /webhook/<webhook_id> and anything below it'),
  headers: z.record(str, str),
  body: str.nullable().describe('null when the request had none; binary bodies in base64 (body_encoding)'),
  body_encoding: z
    .enum(['utf8', 'base64'])
    .describe(
      'How body holds the bytes: utf8 text as sent, ' +
        'or base64 of bodies that are not valid UTF-8 (decode it to get them back)',
    ),
  body_size: int.describe("The body's size in bytes as sent"),
  query_params: str
    .nullable()
    .describe('The query parsed: a JSON object of its pairs (repeated names as lists), or null without one'),
  query_string: str
    .nullable()
    .describe(
      'The query as sent, byte for byte, without its "?" (null: none); what forwarding, listen and replay send. ' +
        'Captures stored before it was kept have it rebuilt from query_params',
    ),
  ip_address: str,
  user_agent: str,
  created_at: z.iso.datetime(),
  matched_rule: int
    .nullable()
    .describe("The index (from 0) of the webhook's response rule that answered it; null: none did"),
  answered_status: int
    .nullable()
    .describe(
      "The status the sender was answered with (the rule's, else the webhook's response's, else 200); " +
        'null for captures stored before it was recorded',
    ),
  schema: z
    .object({
      valid: z
        .boolean()
        .nullable()
        .describe('null: not known, error says why (the check ran past its budget, or has not run yet)'),
      errors: z
        .array(z.object({ path: str.describe('A JSON Pointer into the body ("" for the whole)'), message: str }))
        .describe('What is wrong (the first failure), at most 20; empty when valid is true or null'),
      error: str
        .optional()
        .describe(
          'When valid is null, why: "check took too long" or "check used too much memory" (kept), ' +
            '"not checked: the checker is busy" or "not checked yet: the check is still running" (a later read tells)',
        ),
    })
    .optional()
    .describe("With a JSON Schema set on the webhook: whether this capture's body is valid against it"),
  signature: z
    .object({ status: z.enum(['valid', 'invalid', 'missing']), reason: str })
    .optional()
    .describe("With a signature check set on the webhook: whether this capture's signature verifies"),
  delivery: z
    .object({
      status: z.enum(['pending', 'success', 'failed']),
      attempts: int,
      response_status: int.nullable(),
      duration_ms: num.nullable(),
      next_attempt_at: z.iso
        .datetime()
        .nullable()
        .optional()
        .describe('While pending after a failure: when the next attempt is due'),
      history: z.array(deliveryAttempt),
    })
    .optional()
    .describe('When the webhook forwarded this capture: its delivery to forward_url, every attempt in history'),
});

export const webhookReplayResult = z.object({
  success: z.literal(true),
  request_id: int,
  target_url: str,
  sent: z.object({ method: str, header_names: z.array(str), body_size: int }),
  response: z.object({ status: int, headers: z.record(str, str), body: str, truncated: z.boolean() }),
  duration_ms: num,
});
export const webhookUpdateResult = z.object({
  success: z.literal(true),
  webhook_id: str,
  ...webhookSettings,
  message: str,
});

export const webhookCreateResult = z.object({
  success: z.literal(true),
  webhook_id: str,
  webhook_url: str,
  created_at: z.iso.datetime(),
  ...webhookSettings,
  message: str,
});
export const webhookListResult = z.object({
  success: z.literal(true),
  data: z.object({ total: int, webhooks: z.array(webhook) }),
});
export const webhookRequestsResult = z.object({
  success: z.literal(true),
  webhook_id: str,
  data: z.object({
    total: int.describe('Every capture that matches, on every page'),
    count: int.describe('The captures on this page'),
    requests: z.array(capturedRequest),
    next_cursor: str.optional().describe('Pass as cursor for the next (older) page; absent on the last page'),
  }),
});
/**
 * The requests as the MCP tool webhook_requests answers them: the page beside the webhook's id, each
 * capture without its headers and body when the call asked for no bodies (include_bodies false).
 */
export const webhookRequestsToolResult = z.object({
  webhook_id: str,
  ...webhookRequestsResult.shape.data.shape,
  requests: z.array(capturedRequest.partial({ headers: true, body: true })),
});
export const webhookWaitResult = z.object({
  success: z.literal(true),
  webhook_id: str,
  request: capturedRequest.nullable().describe('The first matching capture; null when none came in time'),
  timed_out: z.boolean(),
});
const named = <V extends z.ZodType>(value: V) =>
  z.object({
    added: z.record(str, value).describe('Names only b has, with their values'),
    removed: z.record(str, value).describe('Names only a has, with their values'),
    changed: z.record(str, z.object({ a: value, b: value })).describe('Names both have, with different values'),
  });
const json = z.json();
export const webhookDiffResult = z.object({
  success: z.literal(true),
  webhook_id: str,
  a: z.object({ id: int, created_at: z.iso.datetime() }),
  b: z.object({ id: int, created_at: z.iso.datetime() }),
  same: z.boolean().describe('No difference anywhere (headers ignored aside)'),
  method: z.object({ a: str, b: str }).nullable().describe('null: the same'),
  path: z.object({ a: str, b: str }).nullable().describe('null: the same'),
  query: named(z.union([str, z.array(str)])),
  headers: named(str).extend({
    ignored: z.array(str).describe('Header names left out of the comparison (ignore_headers, or the default list)'),
  }),
  body: z
    .discriminatedUnion('format', [
      z.object({
        format: z.literal('json'),
        same: z.boolean(),
        truncated: z
          .boolean()
          .describe('More than 1,000 changes, or 256 KiB of pointers and values: the first ones are listed'),
        changes: z.array(
          z.object({
            change: z.enum(['added', 'removed', 'changed']),
            pointer: str.describe('Where, as an RFC 6901 JSON Pointer ("" is the whole body)'),
            a: json.optional().describe("a's value (not for added)"),
            b: json.optional().describe("b's value (not for removed)"),
          }),
        ),
      }),
      z.object({
        format: z.literal('text'),
        same: z.boolean(),
        patch: str
          .nullable()
          .describe('Unified diff hunks (3 lines of context); null past 5,000 line edits or half a second of work'),
        truncated: z.boolean().describe('The patch is cut at 256 KiB'),
        reason: str.optional().describe('Why patch is null: the texts, their sizes, and the bound they passed'),
      }),
      z.object({ format: z.literal('binary'), same: z.boolean(), a_size: int, b_size: int }),
    ])
    .describe('JSON bodies (both parse) by pointer, arrays index by index; other text by lines; base64 ones by bytes'),
});
export const webhookDeleteResult = z.object({ success: z.literal(true), message: str, webhook_id: str });
