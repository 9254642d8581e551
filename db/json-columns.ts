// What the JSON columns hold, checked where they are read (the queries of db/): a row that does not
// hold its shape fails there, naming the column, not somewhere later in an answer. db/schema.ts gives
// the same shapes as types; each schema here `satisfies` its type, so the two cannot drift apart.
// Load tests' columns are in load-test-columns.ts.
import { z } from 'zod';
import type {
  CaptureDelivery,
  JsonSchema,
  OauthPayload,
  QueryParams,
  StoredSchemaCheck,
  WebhookResponse,
  WebhookRetention,
  WebhookSignature,
} from './schema.ts';
import type { ResponseRule } from '../lib/webhooks/webhook-rules.ts';

export const webhookResponseColumn = z.object({
  status: z.number(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  delay_ms: z.number(),
}) satisfies z.ZodType<WebhookResponse>;

const valueTest = z.object({
  equals: z.string().optional(),
  present: z.boolean().optional(),
  regex: z.string().optional(),
});
export const webhookRulesColumn = z.array(
  z.object({
    match: z.object({
      method: z.array(z.string()).optional(),
      path: z.string().optional(),
      query: z.record(z.string(), valueTest).optional(),
      header: z.record(z.string(), valueTest).optional(),
      body: z
        .object({
          pointer: z.string().optional(),
          equals: z.json().optional(),
          exists: z.boolean().optional(),
          regex: z.string().optional(),
        })
        .optional(),
    }),
    response: webhookResponseColumn,
  }),
) satisfies z.ZodType<ResponseRule[], unknown>;

export const webhookSchemaColumn = z.record(z.string(), z.unknown()) satisfies z.ZodType<JsonSchema, unknown>;

export const captureSchemaCheckColumn = z.object({
  hash: z.string(),
  valid: z.boolean().nullable(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })),
  error: z.string().optional(),
}) satisfies z.ZodType<StoredSchemaCheck>;

export const webhookSignatureColumn = z.object({
  scheme: z.string(),
  header: z.string(),
  sealed_secret: z.string(),
}) satisfies z.ZodType<WebhookSignature>;

export const webhookRetentionColumn = z.object({
  max_requests: z.number(),
  max_age_days: z.number(),
}) satisfies z.ZodType<WebhookRetention>;

export const captureHeadersColumn = z.record(z.string(), z.string());

export const captureQueryParamsColumn = z.record(
  z.string(),
  z.union([z.string(), z.array(z.string())]),
) satisfies z.ZodType<QueryParams>;

export const captureDeliveryColumn = z.object({
  status: z.enum(['pending', 'success', 'failed']),
  attempts: z.number(),
  response_status: z.number().nullable(),
  duration_ms: z.number().nullable(),
  next_attempt_at: z.string().nullable().default(null),
  history: z.array(
    z.object({
      attempt: z.number(),
      at: z.string(),
      response_status: z.number().nullable(),
      duration_ms: z.number(),
      error: z.string().nullable(),
    }),
  ),
}) satisfies z.ZodType<CaptureDelivery, unknown>;

/** An OAuth record as oidc-provider stores it: its own open shape, with the fields the store indexes. */
export const oauthPayloadColumn = z.looseObject({
  grantId: z.string().optional(),
  userCode: z.string().optional(),
  uid: z.string().optional(),
  accountId: z.string().optional(),
  consumed: z.number().optional(),
}) satisfies z.ZodType<OauthPayload, unknown>;

/**
 * A JSON column's value checked against its shape (`column` names it in the error). Postgres's driver
 * and PGlite give jsonb parsed; a string (json given as text) is parsed first.
 */
export function readJsonColumn<T>(column: string, schema: z.ZodType<T, unknown>, value: unknown): T {
  const parsed = schema.safeParse(typeof value === 'string' ? JSON.parse(value) : value);
  if (!parsed.success)
    throw new Error(`the column ${column} does not hold its shape: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** The same for a nullable column: null stays null. */
export function readNullableJsonColumn<T>(column: string, schema: z.ZodType<T, unknown>, value: unknown): T | null {
  return value === null ? null : readJsonColumn(column, schema, value);
}
