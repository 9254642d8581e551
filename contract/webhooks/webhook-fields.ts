// The fields the webhook operations share, with what each means to a client (validate.ts' fieldTexts):
// the REST schemas (webhooks.ts) are built from them, and so are the MCP tools' inputs (toolInput).
import { z } from 'zod';
import { PUBLIC_ID_PATTERN } from '../../lib/auth/tokens.ts';
import { described } from '../validate.ts';
import { MAX_RULES, rulesSchema } from './webhook-rules.ts';
import {
  MAX_DELAY_MS,
  MAX_RESPONSE_BODY_BYTES,
  MAX_RESPONSE_HEADERS,
  forwardUrlSchema,
  jsonSchemaSchema,
  responseSchema,
  retentionSchema,
  signatureSchema,
} from './webhook-settings.ts';

export const webhookIdField = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .regex(PUBLIC_ID_PATTERN, 'is not a webhook id (up to 64 letters, digits, - and _)');
/** The webhook an operation acts on, named by where a client finds its id. */
export const webhookId = described(webhookIdField, 'The id returned by webhook_create or webhook_list');

/** A webhook's settings, each optional, null for none: at creation and in an update alike. */
export const settingFields = {
  response: described(
    responseSchema.nullable().optional(),
    `What senders are answered: status 200-599, up to ${MAX_RESPONSE_HEADERS} headers, a body up to ` +
      `${MAX_RESPONSE_BODY_BYTES / 1024} KiB, a delay up to ${MAX_DELAY_MS} ms; null: the default JSON`,
  ),
  rules: described(
    rulesSchema.nullable().optional(),
    `Response rules, in order (at most ${MAX_RULES}): the first whose match holds answers with its response ` +
      'instead of the default. match: any of method, path (a glob below the webhook URL), query and header ' +
      '({name: value | true | false | {regex}}), body ({pointer, equals | exists | regex} or {regex}); response ' +
      'as above, its body may use {{request.body./json/pointer}}, {{request.header.NAME}}, {{uuid}}, {{now}}. ' +
      'null or []: none',
  ),
  schema: described(
    jsonSchemaSchema.nullable().optional(),
    "A JSON Schema (draft 2020-12, at most 64 KiB) each capture's body is checked against: captures then show " +
      'schema {valid, errors}; null: no check',
  ),
  signature: described(
    signatureSchema.nullable().optional(),
    "Check each capture's signature: scheme stripe, github, slack, standard-webhooks or hmac-sha256 (header: " +
      'where its hex digest comes, x-signature by default); null: no check',
  ),
  forward_url: described(
    forwardUrlSchema.nullable().optional(),
    'Pass every new capture on to this http(s) URL (private addresses are refused); null: stop forwarding',
  ),
  retention: described(
    retentionSchema.nullable().optional(),
    'How many captures to keep (default 500, at most 10000 by plan) and for how many days (at most 7 or 30 by plan)',
  ),
};
export const SETTING_NAMES = Object.keys(settingFields) as Array<keyof typeof settingFields>;

/** my-webhook-replay: a capture, and where to send it again. */
export const replayFields = {
  webhook_id: webhookId,
  request_id: described(
    z
      .number({ error: 'must be the id of a captured request' })
      .int('must be a whole number')
      .min(1, 'must be the id of a captured request'),
    'The id of the captured request (webhook_requests)',
  ),
  target_url: described(
    z.string({ error: 'must be a string' }).min(1, 'is required').max(2000, 'must be at most 2000 characters'),
    'Where to send it, http(s)',
  ),
};
