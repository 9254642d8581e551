// What load tests' JSON columns hold (json-columns.ts: checked where they are read; each schema
// `satisfies` its type): a test's configuration, its outputs' states and its results, a shard
// attempt's snapshot, and a shard report's seconds.
import type { SecondFigures, ShardSnapshot } from '../../lib/load/snapshot.ts';
import { z } from 'zod';
import type { LoadOutputState } from '../../lib/jobs/load-outputs.ts';
import type { FinalResults, LoadTestConfig, ReplayRequest } from '../../lib/jobs/load-test.ts';
import { PHASES } from '../../lib/load/phases.ts';

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
  connection_errors: z.number().default(0),
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
  errors_per_second: perSecond.optional(),
  // null is a second without answers (a gap on a chart, not a 0).
  p50_response_time_per_second: z.array(z.number().nullable()).optional(),
  p95_response_time_per_second: z.array(z.number().nullable()).optional(),
  p99_response_time_per_second: z.array(z.number().nullable()).optional(),
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
  verdict_reason: z.enum(['target_unreachable', 'thresholds']).optional(),
  verdict_detail: z.string().optional(),
  aborted_by: z.string().optional(),
}) satisfies z.ZodType<FinalResults, unknown>;

/** A shard attempt's phases' histograms (compressed base64 HDR), by phase: load_test_shards.phases. */
export const shardPhasesColumn = z.record(z.enum(PHASES), z.string());

/** A shard attempt's snapshot without its phases (in their own column: load_test_shards.phases). */
export const shardSnapshotColumn = z.object({
  total: z.number(),
  successful: z.number(),
  failed: z.number(),
  connectionErrors: z.number().optional(),
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
  sending: z.object({ first: z.number(), last: z.number(), pace: z.number() }).nullable().optional(),
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

/** A shard report's seconds (domain/load/metrics/per-second.ts), load_test_seconds.seconds. */
export const shardSecondsColumn = z.array(
  z.object({
    second: z.number(),
    sent: z.number(),
    answered: z.number(),
    failed: z.number(),
    latencySumUs: z.number(),
    latencyMaxUs: z.number(),
    histogram: z.string().optional(),
    statusCodes: counts.optional(),
    phased: z.number().optional(),
    phaseSumUs: z.array(z.number()).optional(),
    connectionErrors: z.number().optional(),
  }),
) satisfies z.ZodType<SecondFigures[], unknown>;

/** A replaying test's sequence, load_test_replays.requests. */
export const replayRequestsColumn = z.array(
  z.object({
    at: z.number(),
    method: z.string(),
    path: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().optional(),
  }),
) satisfies z.ZodType<ReplayRequest[], unknown>;
