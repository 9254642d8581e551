// The response shapes of spec/interface.md, field by field with the spec's types, so that a suite can
// check that an endpoint answers every field the contract names (extra fields are allowed).
import { z } from 'zod';

const str = z.string();
const num = z.number();
const int = z.number().int();
const nullableStr = z.string().nullable();

export const dnsLookupResult = z.object({
  success: z.literal(true),
  domain: str,
  records: z.object({
    A: z.array(str).optional(),
    AAAA: z.array(str).optional(),
    NS: z.array(str).optional(),
    TXT: z.array(str).optional(),
    MX: z.array(z.object({ priority: int, host: str })).optional(),
    CNAME: z.array(str).optional(),
    SOA: z.object({}).passthrough().nullable().optional(),
  }),
});

export const ipInfoResult = z.object({
  success: z.literal(true),
  ip: str,
  data: z.object({
    // Strings in the spec; null where the address has no location (private, loopback, ...).
    country: nullableStr,
    country_code: nullableStr,
    region: nullableStr,
    city: nullableStr,
    latitude: num.nullable(),
    longitude: num.nullable(),
    isp: nullableStr,
    organization: nullableStr,
    timezone: nullableStr,
  }),
});

const check = z.object({
  name: str,
  category: str,
  max_score: num,
  score: num,
  present: z.boolean(),
  passed: z.boolean(),
  description: str,
  details: z.array(str),
  value: str.optional(),
  recommendation: str.optional(),
  risk: str.optional(),
});

export const httpHeadersResult = z.object({
  success: z.literal(true),
  url: str,
  effective_url: str,
  http_code: int,
  http_version: num,
  response_time: num,
  execution_time_ms: num,
  timings: z.object({ dns: num, connect: num, ssl: num, ttfb: num, total: num }),
  network: z.object({ primary_ip: str, primary_port: int, redirect_count: int }),
  size: z.object({ header: int, download: int, total: int }),
  headers: z.record(str, str),
  analysis: z.object({
    security: z.object({
      score: num,
      max_score: num,
      percentage: num,
      grade: z.enum(['A+', 'A', 'A-', 'B+', 'B', 'B-', 'C+', 'C', 'C-', 'D+', 'D', 'D-', 'F']),
      summary: z.object({ critical: int, high: int, medium: int, low: int }),
      checks: z.array(check),
    }),
    ssl_tls: z.object({
      enabled: z.boolean(),
      grade: str,
      certificate: z.object({ subject: str, issuer: str, valid_from: str, valid_to: str }),
      ssl_version: str,
    }),
    cache: z.object({ cacheable: z.boolean(), score: num, max_score: num, details: z.array(str) }),
    performance: z.object({
      compression: str,
      http2: z.boolean(),
      http3: z.boolean(),
      score: num,
      max_score: num,
      details: z.array(str),
    }),
    cdn_waf: z.object({ cdn: str, waf: str, details: z.array(str) }),
    cookies: z.object({
      score: num,
      max_score: num,
      cookies: z.array(
        z.object({
          name: str,
          secure: z.boolean(),
          httponly: z.boolean(),
          samesite: str,
          score: num,
          issues: z.array(str),
        }),
      ),
    }),
  }),
  overall_score: z.object({ score: num, max_score: num, percentage: num, grade: str }),
});

const webhookResponse = z
  .object({ status: int, headers: z.record(str, str), body: str, delay_ms: int })
  .nullable()
  .describe('What senders get; null: the default JSON acknowledgement');
const webhookSignature = z
  .object({ scheme: str, header: str })
  .nullable()
  .describe("How captures' signatures are checked (the secret is never shown); null: not checked");
/** What an owner sets on a webhook, as every door (REST, MCP) answers it. */
export const webhookSettings = {
  response: webhookResponse,
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
      'How body holds the bytes: utf8 text as sent, or base64 of bodies that are not valid UTF-8 (decode it to get them back)',
    ),
  body_size: int.describe("The body's size in bytes as sent"),
  query_params: str.nullable().describe('The query as a JSON object (repeated names as lists), or null'),
  ip_address: str,
  user_agent: str,
  created_at: z.iso.datetime(),
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
export const webhookDeleteResult = z.object({ success: z.literal(true), message: str, webhook_id: str });

const isoOrNull = z.iso.datetime({ offset: true }).nullable();
const currencyCode = z.enum(['USD', 'EUR', 'GBP', 'CNY', 'INR', 'CAD', 'AUD', 'JPY', 'MXN', 'BRL']);
const confidence = z.enum(['high', 'medium', 'low']);

export const whoisResult = z.object({
  success: z.literal(true),
  domain: str,
  available: z.boolean().nullable(),
  is_registered: z.boolean().nullable(),
  is_premium: z.boolean(),
  is_reserved: z.boolean(),
  premium_type: z.enum(['registry_premium', 'aftermarket', 'reserved', 'high_price']).nullable(),
  availability_confidence: confidence,
  whois_server: str,
  raw_data: str,
  parsed_data: z.object({
    domain_name: nullableStr,
    registrar: nullableStr,
    creation_date: isoOrNull,
    expiration_date: isoOrNull,
    updated_date: isoOrNull,
    status: z.array(str),
    name_servers: z.array(str),
    registrant: z.null(),
  }),
  pricing: z
    .object({
      available: z.boolean(),
      is_premium: z.boolean(),
      registration_price: num.nullable(),
      renewal_price: num.nullable(),
      currency: currencyCode,
    })
    .nullable(),
  execution_time_ms: int,
});

export const whoisMeta = z.object({ cached: z.boolean(), cache_expires: int, query_time_ms: int });

export const bulkCheckResult = z.object({
  success: z.literal(true),
  query_time_ms: int,
  total: int,
  cached_count: int,
  checked_count: int,
  answered_by_rule_count: int.describe(
    'Names answered by a rule without a lookup (RFC 6761 names such as example.com)',
  ),
  invalid_count: int.describe('Names refused as not registrable; cached + checked + by rule + invalid = total'),
  mode: str,
  currency: currencyCode,
  results: z.record(
    str,
    z.union([
      z.object({
        success: z.literal(false),
        error: str.describe(
          'why the name has no answer: the reason it is invalid, "timeout" (no answer by the deadline; ask again later) or "the check failed: ..."',
        ),
        message: str.optional(),
      }),
      z.object({
        success: z.literal(true),
        available: z.boolean().nullable(),
        is_registered: z.boolean().nullable(), // null when the evidence does not say (docs/decisions.md)
        is_premium: z.boolean(),
        availability_confidence: confidence,
        cached: z.boolean(),
        pricing: z
          .object({ registration: num, renewal: num, currency: currencyCode, is_premium: z.boolean() })
          .optional(),
      }),
    ]),
  ),
});

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

export const accountResult = z.object({
  success: z.literal(true),
  email: str,
  plan: z.enum(['free', 'pro', 'enterprise']),
  limits: z
    .object({
      requests_per_minute: int,
      requests_per_day: int,
      live_streams: int,
      webhooks: int,
      captures_per_minute: int,
      capture_bytes: int,
      captures_kept: int,
      capture_days: int,
      forwarding_webhooks: int,
      load_tests_at_once: int,
      load_test_users: int,
      load_test_seconds: int,
    })
    .describe('What the plan allows (docs/api.md, "Plans")'),
});

// Beyond the contract: the shapes of the other answers, for the OpenAPI document (extra fields allowed).
export const errorResult = z.object({
  success: z.literal(false),
  error: str,
  code: int,
  error_code: str.describe('stable name of the condition: invalid_input, plan_limit, provenance_mark, ...'),
  message: str,
});
const nullableIso = isoTime.nullable();
const thresholdOutcome = z.object({ threshold: str, observed: num, pass: z.boolean() });

export const loadTestStatusAnswer = loadTestStatusResult.extend({
  status: z.enum(['pending', 'running', 'completed', 'stopped', 'failed']),
  metrics: loadTestStatusResult.shape.metrics.extend({
    p95_response_time: num.describe('95th percentile latency (ms) of the requests so far; the final one once ended'),
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
  verdict: z.enum(['passed', 'failed']).optional(),
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
      verdict: z.enum(['passed', 'failed']).optional().describe('passed when every threshold held'),
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
export const whoisAnswer = whoisResult.extend({ whois_server: str.nullable(), meta: whoisMeta.optional() });
export const pipelineCheckStartResult = z.object({
  success: z.literal(true),
  check_id: str,
  status: str,
  message: str,
});
export const pipelineCheckStatusResult = z.object({
  success: z.literal(true),
  check_id: str,
  status: str,
  started_at: str,
  completed_at: str.nullable(),
  pools: z.record(str, z.object({ status: str }).passthrough()),
});
const finding = z.object({
  rule: str,
  category: z.enum(['template', 'alignment', 'accessibility', 'style_budget']),
  severity: z.enum(['high', 'medium', 'low']),
  selector: nullableStr,
  property: nullableStr,
  measured: str,
  threshold: str,
  fix: str,
  evidence: str,
});
export const siteDiscoverResult = z.object({
  success: z.literal(true),
  url: str,
  source: z.enum(['sitemap', 'homepage_links']),
  pages: z.array(str),
  total: int,
  cached: z.boolean(),
  cache_age_seconds: int,
});
export const siteAuditResult = z.object({
  success: z.literal(true),
  url: str,
  final_url: str,
  page_type: z.enum(['landing', 'article', 'product', 'pricing', 'docs', 'contact', 'form', 'other']),
  page_type_source: str,
  findings: z.array(finding),
  needs_review: z.array(
    z.object({
      rule: str,
      category: z.enum(['template', 'alignment', 'accessibility', 'style_budget']),
      selector: nullableStr,
      reason: str,
      evidence: str,
    }),
  ),
  summary: z
    .object({
      score: num,
      total_findings: int,
      needs_review: int,
      by_category: z.record(str, int),
      by_severity: z.record(str, int),
      stylesheets: z.object({ read: int, skipped: z.array(z.object({ url: str, reason: str })) }).passthrough(),
      limitations: str,
    })
    .passthrough(),
  cached: z.boolean(),
  cache_age_seconds: int,
});
