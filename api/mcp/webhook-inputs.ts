// What the webhook tools take, as the model sees it: loose shapes with descriptions (every value is
// then checked by the REST schemas, contract/webhooks.ts, so both doors refuse alike).
import { z } from 'zod';
import { toolArgs } from '../../contract/validate.ts';

/** What an owner may set, as the tools take it (checked by the REST schemas). */
export const settingsIn = {
  // Nested objects are strict too: a typo inside one (max_request) would otherwise reset what it sets.
  response: toolArgs({
    status: z.number().int().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.string().optional(),
    delay_ms: z.number().int().optional(),
  })
    .nullable()
    .optional()
    .describe(
      'What senders are answered: status 200-599, up to 20 headers, a body up to 64 KiB, a delay up to 30000 ms; null: the default JSON',
    ),
  rules: z
    .array(z.object({ match: z.record(z.string(), z.unknown()), response: z.record(z.string(), z.unknown()) }).strict())
    .nullable()
    .optional()
    .describe(
      'Response rules, in order (at most 50): the first whose match holds answers with its response instead of the default. match: any of method, path (a glob below the webhook URL), query and header ({name: value | true | false | {regex}}), body ({pointer, equals | exists | regex} or {regex}); response as above, its body may use {{request.body./json/pointer}}, {{request.header.NAME}}, {{uuid}}, {{now}}. null or []: none',
    ),
  schema: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .describe(
      "A JSON Schema (draft 2020-12, at most 64 KiB) each capture's body is checked against: captures then show schema {valid, errors}; null: no check",
    ),
  forward_url: z
    .string()
    .nullable()
    .optional()
    .describe('Pass every new capture on to this http(s) URL (private addresses are refused); null: stop forwarding'),
  signature: toolArgs({ scheme: z.string(), secret: z.string(), header: z.string().optional() })
    .nullable()
    .optional()
    .describe(
      "Check each capture's signature: scheme stripe, github, slack, standard-webhooks or hmac-sha256 (header: where its hex digest comes, x-signature by default); null: no check",
    ),
  retention: toolArgs({ max_requests: z.number().int().optional(), max_age_days: z.number().int().optional() })
    .nullable()
    .optional()
    .describe(
      'How many captures to keep (default 500, at most 10000 by plan) and for how many days (at most 7 or 30 by plan)',
    ),
};
export const webhookIdIn = z.string().describe('The id returned by webhook_create or webhook_list');
/** A webhook and the filters of a search (checked by the REST schemas). */
export const captureFilterIn = {
  webhook_id: webhookIdIn,
  method: z.string().optional(),
  header: z.string().optional(),
  q: z.string().optional(),
  since: z.string().optional(),
};
