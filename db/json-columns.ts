// What the JSON columns hold, checked where they are read (the queries of db/): a row that does not
// hold its shape fails there, naming the column, not somewhere later in an answer. db/schema.ts gives
// the same shapes as types; each schema here `satisfies` its type, so the two cannot drift apart.
import { z } from 'zod';
import type { ShardSnapshot } from '../domain/load/shard.ts';
import { PHASES } from '../lib/load/phases.ts';
import type { FinalResults, LoadTestConfig } from '../lib/jobs/load-test.ts';
import type { LoadOutputState } from '../lib/jobs/load-outputs.ts';
import type {
  CaptureDelivery,
  JsonSchema,
  OauthPayload,
  WebhookResponse,
  WebhookRetention,
  WebhookSignature,
} from './schema.ts';
import type { ResponseRule } from '../lib/webhook-rules.ts';

const counts = z.record(z.string(), z.number());
// Rows written before a field existed read with the value it has had since for such a test (the
// defaults below): nothing stored becomes unreadable when a shape grows.
/** A per-second series: the seconds nothing happened in are holes, stored as null, read as zeros. */
const perSecond = z.array(z.number().nullable()).transform((a) => a.map((n) => n ?? 0));

export const loadTestConfigColumn = z.object({
  target_url: z.string(),
  concurrent_users: z.number(),
  test_duration: z.number(),
  ramp_up_time: z.number(),
  requests_per_second: z.number(),
  http_method: z.string(),
  auth_type: z.string(),
  header_names: z.array(z.string()),
  body_bytes: z.number(),
  insecure_tls: z.boolean().default(false),
  http_version: z.enum(['1.1', '2']).default('1.1'),
  http2: z.object({ streams_per_connection: z.number() }).optional(),
  stages: z.array(z.object({ duration: z.number(), target: z.number() })).optional(),
  stage_target: z.enum(['users', 'rate']).optional(),
  steps: z
    .array(
      z.object({
        name: z.string().nullable(),
        method: z.string(),
        path: z.string().nullable(),
        header_names: z.array(z.string()),
        body_bytes: z.number(),
        capture: z.record(z.string(), z.string()),
      }),
    )
    .optional(),
  replay: z
    .object({
      source: z.enum(['webhook', 'har']),
      webhook_id: z.string().optional(),
      requests: z.number(),
      distinct_requests: z.number(),
      span_ms: z.number(),
      speed: z.number(),
      loop: z.boolean(),
    })
    .optional(),
  thresholds: z
    .array(
      z.union([
        z.string(),
        z.object({ threshold: z.string(), abortOnFail: z.literal(true), delayAbortEval: z.number() }),
      ]),
    )
    .default([]),
  outputs: z
    .array(
      z.union([
        z.object({
          type: z.literal('prometheus_remote_write'),
          url: z.string(),
          header_names: z.array(z.string()),
          interval_seconds: z.number(),
        }),
        z.object({ type: z.enum(['ndjson', 'csv']) }),
      ]),
    )
    .optional(),
  tags: z.record(z.string(), z.string()).optional(),
}) satisfies z.ZodType<LoadTestConfig, unknown>;

/** Each output's state (null for those that send nothing), by its place in the config's outputs. */
export const loadOutputStatesColumn = z.array(
  z
    .object({
      writes: z.number(),
      errors: z.number(),
      last_error: z.string().nullable(),
      last_write_at: z.string().nullable(),
    })
    .nullable(),
) satisfies z.ZodType<Array<LoadOutputState | null>, unknown>;

const phaseFigures = z.record(z.string(), z.number());

export const loadTestResultsColumn = z.object({
  total_requests: z.number(),
  successful_requests: z.number(),
  failed_requests: z.number(),
  avg_response_time: z.number(),
  throughput: z.number(),
  error_rate: z.number(),
  total_bytes_sent: z.number(),
  total_bytes_received: z.number(),
  min_response_time: z.number(),
  max_response_time: z.number(),
  p50_response_time: z.number(),
  p75_response_time: z.number(),
  p90_response_time: z.number(),
  p95_response_time: z.number(),
  p99_response_time: z.number(),
  duration_seconds: z.number(),
  status_codes: counts,
  errors: counts,
  dropped_requests: z.number(),
  shard_failures: z.number(),
  requests_lost: z.number(),
  shard_restarts: z.number().default(0),
  seconds_without_traffic: z.number().default(0),
  restarts: z
    .array(
      z.object({
        shard: z.number(),
        attempt: z.number(),
        seconds_without_traffic: z.number(),
        requests_lost: z.number(),
      }),
    )
    .optional(),
  requests_per_second: perSecond,
  error_rate_per_second: perSecond.default([]),
  avg_response_time_per_second: perSecond.default([]),
  max_response_time_per_second: perSecond.default([]),
  steps: z
    .array(
      z.object({
        step: z.number(),
        name: z.string(),
        requests: z.number(),
        failed_requests: z.number(),
        error_rate: z.number(),
        capture_failures: z.number(),
        avg_response_time: z.number(),
        p50_response_time: z.number(),
        p95_response_time: z.number(),
        p99_response_time: z.number(),
        max_response_time: z.number(),
        status_codes: counts,
      }),
    )
    .optional(),
  protocols: counts.optional(),
  http2: z.object({ connections: z.number(), server_max_concurrent_streams: z.number().nullable() }).optional(),
  phases: z.record(z.string(), phaseFigures).optional(),
  thresholds: z.array(z.object({ threshold: z.string(), observed: z.number(), pass: z.boolean() })).optional(),
  verdict: z.enum(['passed', 'failed']).optional(),
  aborted_by: z.string().optional(),
}) satisfies z.ZodType<FinalResults, unknown>;

export const shardSnapshotColumn = z.object({
  total: z.number(),
  successful: z.number(),
  failed: z.number(),
  bytesSent: z.number(),
  bytesReceived: z.number(),
  latencySumUs: z.number(),
  histogram: z.string(),
  statusCodes: counts,
  errors: counts,
  inFlight: z.number(),
  dropped: z.number(),
  superseded: z.boolean().optional(),
  windowSeconds: z.number().optional(),
  shards: z.number().optional(),
  firstSentAt: z.number().nullable(),
  takenAt: z.number(),
  perSecond,
  seconds: z
    .object({ answered: perSecond, failed: perSecond, latencySumUs: perSecond, latencyMaxUs: perSecond })
    .optional(),
  phases: z.record(z.enum(PHASES), z.string()).optional(),
  steps: z
    .array(
      z.object({
        name: z.string(),
        requests: z.number(),
        failed: z.number(),
        latencySumUs: z.number(),
        histogram: z.string(),
        statusCodes: counts,
        captureFailures: z.number(),
      }),
    )
    .optional(),
  protocols: counts.optional(),
  http2: z.object({ connections: z.number(), serverMaxStreams: z.number().nullable() }).optional(),
}) satisfies z.ZodType<ShardSnapshot, unknown>;

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
