// What an owner sets on a webhook, as request bodies give it: the answer its senders get, how its
// captures' signatures are checked, where they are forwarded and how many are kept.
import { HEADER_NAME } from '../http-fields.ts';
import { wholeNumber } from '../input-fields.ts';
import { CONNECTION_HEADERS } from '../../lib/net/header-object.ts';
import { z } from 'zod';
import { SIGNATURE_SCHEMES } from '../../lib/webhooks/webhook-signatures.ts';
import { schemaProblem } from '../../lib/json-schema/json-schema-limits.ts';

/** Hop-by-hop headers and those that frame the answer: the server sets them. */
const NOT_SETTABLE = new Set([...CONNECTION_HEADERS, 'date']);
/**
 * Capture URLs share the service's origin with the dashboard and the API: an answer must not set
 * cookies there, loosen its sandbox or vouch for credentials (custom answers always go sandboxed).
 * Refused when set, and left out when sent (api/capture.ts), were one stored before it was refused.
 */
export const NEVER_IN_AN_ANSWER = new Set([
  'set-cookie',
  'set-cookie2',
  'content-security-policy',
  'content-security-policy-report-only',
  'x-content-type-options',
  'access-control-allow-credentials',
  'clear-site-data',
  'service-worker-allowed',
  'refresh',
]);
/** What Node can write as a header value: tabs, visible ASCII and Latin-1. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
export const MAX_RESPONSE_BODY_BYTES = 64 * 1024;
export const MAX_RESPONSE_HEADERS = 20;
export const MAX_DELAY_MS = 30_000;

/** What a webhook answers its senders (its owner's choice); the default is the JSON acknowledgement. */
export const responseSchema = z
  .object(
    {
      status: wholeNumber(200, 599, { range: 'must be from 200 to 599 (1xx are not answers)' }).default(200),
      headers: z
        .record(
          z.string().regex(HEADER_NAME, 'must be header names'),
          z
            .string({ error: 'must be strings' })
            .max(1024, 'must be at most 1024 characters')
            .regex(HEADER_VALUE, 'must be tabs, visible ASCII or Latin-1 characters (no line breaks)'),
        )
        .refine(
          (h) => Object.keys(h).length <= MAX_RESPONSE_HEADERS,
          `must hold at most ${MAX_RESPONSE_HEADERS} headers`,
        )
        .refine(
          (h) => !Object.keys(h).some((k) => NOT_SETTABLE.has(k.toLowerCase())),
          `must not set ${[...NOT_SETTABLE].join(', ')}: the server sets them`,
        )
        .refine(
          (h) => !Object.keys(h).some((k) => NEVER_IN_AN_ANSWER.has(k.toLowerCase())),
          `must not set ${[...NEVER_IN_AN_ANSWER].join(', ')}: capture URLs share the service's origin`,
        )
        .default({}),
      body: z
        .string({ error: 'must be a string' })
        .refine((b) => Buffer.byteLength(b) <= MAX_RESPONSE_BODY_BYTES, 'must be at most 64 KiB')
        .default(''),
      delay_ms: wholeNumber(0, MAX_DELAY_MS).default(0),
    },
    { error: 'must be an object {status, headers, body, delay_ms}, or null for the default answer' },
  )
  .strict();
/** How the captures' signatures are checked (lib/webhooks/webhook-signatures.ts); the secret is never answered back. */
export const signatureSchema = z
  .object(
    {
      scheme: z.enum(SIGNATURE_SCHEMES, { error: `must be one of ${SIGNATURE_SCHEMES.join(', ')}` }),
      secret: z.string({ error: 'must be a string' }).min(1, 'is required').max(256, 'must be at most 256 characters'),
      header: z
        .string()
        .regex(HEADER_NAME, 'must be a header name')
        .max(100, 'must be a header name')
        .transform((h) => h.toLowerCase())
        .optional(),
    },
    { error: 'must be an object {scheme, secret, header}, or null for no check' },
  )
  .strict()
  .superRefine((s, ctx) => {
    if (s.header !== undefined && s.scheme !== 'hmac-sha256')
      ctx.addIssue({
        code: 'custom',
        path: ['header'],
        message: `is named by the ${s.scheme} scheme itself: give it only with hmac-sha256`,
      });
  })
  .transform((s) => ({ ...s, header: s.header ?? (s.scheme === 'hmac-sha256' ? 'x-signature' : '') }));

/**
 * The JSON Schema (draft 2020-12) a webhook's captures are checked against: its size, depth and
 * `uniqueItems` checked here; the service compiles it on the checker's threads, never on the event loop.
 */
export const jsonSchemaSchema = z
  .record(z.string(), z.unknown(), { error: 'must be a JSON Schema object, or null for no check' })
  .superRefine((schema, ctx) => {
    const problem = schemaProblem(schema);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
/** Where captures are passed on: an http(s) URL (the SSRF guard checks it when set and at each delivery). */
export const forwardUrlSchema = z
  .string({ error: 'must be an http or https URL, or null for no forwarding' })
  .max(2000, 'must be at most 2000 characters')
  .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), 'must be an http or https URL');
/** What a webhook keeps (the plan bounds both: lib/plans.ts); either left out is the plan's default. */
export const retentionSchema = z
  .object(
    {
      max_requests: wholeNumber(1, 10_000).optional(),
      max_age_days: wholeNumber(1, 30).optional(),
    },
    { error: "must be an object {max_requests, max_age_days}, or null for the plan's defaults" },
  )
  .strict();
