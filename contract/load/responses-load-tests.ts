// The answers of load tests (spec/interface.md): starting, status, stopping and results, the target
// verification a large one needs, and the fuller shapes the service answers beyond the contract.
import { z } from 'zod';
import { int, num, str } from '../responses-fields.ts';

const isoTime = z.iso.datetime({ offset: true });

export const targetVerificationResult = z.object({
  success: z.literal(true),
  host: str,
  token: str,
  verified: z.boolean(),
  verified_by: z.enum(['http', 'dns', 'cached']).nullable(),
  addresses: z.array(str).describe('The addresses the proof holds for: a large test connects to these only'),
  methods: z.array(z.object({ type: z.enum(['http', 'dns']), how: str }).loose()),
  required: z.boolean(),
  required_above: z.object({ concurrent_users: int, requests_per_second: int, test_duration: int }),
  trusted_for_seconds: int,
});

export const loadTestStartResult = z.object({
  success: z.literal(true),
  test_id: str,
  status: z.literal('pending'),
  message: str,
  config: z.object({ target_url: str, concurrent_users: int, test_duration: int }),
});

export const loadTestStatusResult = z.object({
  success: z.literal(true),
  test_id: str,
  status: str,
  progress: int,
  metrics: z.object({
    total_requests: int,
    successful_requests: int,
    failed_requests: int,
    avg_response_time: num,
    throughput: num,
    error_rate: num,
  }),
  started_at: isoTime,
  estimated_completion: isoTime,
});

export const loadTestStopResult = z.object({
  success: z.literal(true),
  test_id: str,
  status: z.literal('stopped'),
  message: str,
  partial_results: z.object({
    total_requests: int,
    successful_requests: int,
    failed_requests: int,
    avg_response_time: num,
  }),
});

export const loadTestResultsResult = z.object({
  success: z.literal(true),
  test_id: str,
  status: str,
  results: z.object({
    total_requests: int,
    successful_requests: int,
    failed_requests: int,
    total_bytes_sent: int,
    total_bytes_received: int,
    avg_response_time: num,
    min_response_time: num,
    max_response_time: num,
    p50_response_time: num,
    p75_response_time: num,
    p90_response_time: num,
    p95_response_time: num,
    p99_response_time: num,
    throughput: num,
    error_rate: num,
  }),
  started_at: isoTime,
  completed_at: isoTime,
});

// Beyond the contract: the full answers, for the OpenAPI document (extra fields allowed).
const nullableIso = isoTime.nullable();
const connectionErrors = int.describe(
  'Attempts that failed before their request was sent (refused, reset or timed out while connecting, TLS, DNS): ' +
    'apart from total_requests (the requests the target got), counted as failures in error_rate',
);
const verdictReason = z
  .enum(['target_unreachable', 'thresholds'])
  .optional()
  .describe('Why the verdict is failed: every attempt failed (thresholds or not), or a threshold did not hold');
const verdictDetail = str.optional().describe('The reason in words, e.g. "all 412 attempts failed: ECONNREFUSED"');
const thresholdOutcome = z.object({ threshold: str, observed: num, pass: z.boolean() });
const outputsAnswer = z
  .array(
    z.object({
      type: z.enum(['prometheus_remote_write', 'ndjson', 'csv']),
      url: str.optional().describe('The receiver (remote write), or the series to read (ndjson, csv)'),
      interval_seconds: int.optional(),
      writes: int.optional().describe('Writes the receiver took'),
      errors: int.optional().describe('Writes that failed after three tries (the test goes on)'),
      last_error: str.nullable().optional(),
      last_write_at: nullableIso.optional(),
    }),
  )
  .optional()
  .describe('Each metrics output of the start body and how it fares');

export const loadTestStatusAnswer = loadTestStatusResult.extend({
  status: z.enum(['pending', 'running', 'completed', 'stopped', 'failed']),
  metrics: loadTestStatusResult.shape.metrics.extend({
    p95_response_time: num.describe('95th percentile latency (ms) of the requests so far; the final one once ended'),
    connection_errors: connectionErrors.optional(),
  }),
  started_at: nullableIso,
  estimated_completion: nullableIso,
  completed_at: nullableIso,
  stop_requested: z.boolean(),
  failure_reason: str.optional(),
  thresholds: z
    .array(thresholdOutcome)
    .optional()
    .describe('Each threshold on the merged totals: live while the test runs, final once it ended'),
  verdict: z
    .enum(['passed', 'failed'])
    .optional()
    .describe('Once ended: failed when a threshold did not hold or every attempt failed'),
  verdict_reason: verdictReason,
  verdict_detail: verdictDetail,
  outputs: outputsAnswer,
  config: z.record(str, z.unknown()),
});
export const loadTestResultsAnswer = loadTestResultsResult.extend({
  status: z.enum(['completed', 'stopped', 'failed']),
  results: loadTestResultsResult.shape.results
    .extend({
      status_codes: z.record(str, int).optional(),
      errors: z.record(str, int).optional(),
      requests_per_second: z.array(int).optional().describe('Requests sent in each second of the test'),
      error_rate_per_second: z
        .array(num)
        .optional()
        .describe('Percentage of the requests sent in each second that failed'),
      avg_response_time_per_second: z
        .array(num)
        .optional()
        .describe('Mean latency (ms) of the requests sent in each second'),
      max_response_time_per_second: z
        .array(num)
        .optional()
        .describe('Slowest latency (ms) of the requests sent in each second'),
      thresholds: z
        .array(thresholdOutcome)
        .optional()
        .describe("Each threshold with the figure it read (the same as the results' own) and whether it held"),
      connection_errors: connectionErrors.optional(),
      verdict: z
        .enum(['passed', 'failed'])
        .optional()
        .describe('passed when every threshold held; failed when one did not, or when every attempt failed'),
      verdict_reason: verdictReason,
      verdict_detail: verdictDetail,
      steps: z
        .array(
          z.object({
            step: int,
            name: str,
            requests: int,
            failed_requests: int,
            error_rate: num,
            capture_failures: int,
            avg_response_time: num,
            p50_response_time: num,
            p95_response_time: num,
            p99_response_time: num,
            max_response_time: num,
            status_codes: z.record(str, int),
          }),
        )
        .optional()
        .describe("With steps: each step's requests, failures and latency"),
      phases: z
        .record(str, z.record(str, num))
        .optional()
        .describe('Per phase (dns, connect, tls, ttfb, transfer): avg, p50, p90, p95, p99 and max in ms'),
      aborted_by: str.optional().describe('The abortOnFail threshold that stopped the test'),
    })
    .nullable(),
  started_at: nullableIso,
  failure_reason: str.optional(),
  outputs: outputsAnswer,
});
export const loadTestListResult = z.object({
  success: z.literal(true),
  data: z.object({
    total: int,
    tests: z.array(
      z.object({
        test_id: str,
        status: str,
        config: z.record(str, z.unknown()),
        created_at: isoTime,
        started_at: nullableIso,
        completed_at: nullableIso,
        summary: z.record(str, z.unknown()).nullable(),
      }),
    ),
  }),
});
