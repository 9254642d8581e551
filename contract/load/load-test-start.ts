// A load test's start body: one shape for REST, the MCP tool (its input schema) and the dashboard's form.
import {
  CLIENT_HEADERS,
  HEADER_NAME,
  HTTP_METHODS,
  METHODS_WITH_BODY,
  headerMap,
  noLineBreaks,
} from '../http-fields.ts';
import { MAX_TEST_SECONDS } from '../../lib/plans.ts';
import { z } from 'zod';
import { MAX_THRESHOLDS, parseThreshold, refusedThresholds, thresholdList, type Threshold } from './thresholds.ts';
import { MAX_STEPS, stepFaults, stepSchema } from './load-steps.ts';
import { replayDefaults, replayFaults, replaySchema } from './load-replay.ts';
import { outputsSchema, tagsSchema } from './load-outputs.ts';
import { iterationsFaults, seconds, stageFaults, stagesSchema } from './load-profile.ts';
import { wholeNumber } from '../input-fields.ts';

export { HTTP_METHODS };
/** A header value: no line breaks or NUL (they would let a value write its own header lines). */
const headerValue = noLineBreaks('must be a string');

/**
 * One threshold as given: checked by parseThreshold (its messages name what is wrong), shown to
 * clients (the OpenAPI document, the MCP tool's schema) as the two forms it takes.
 */
const thresholdItem = z.unknown().meta({
  anyOf: [
    { type: 'string', examples: ['p99 < 300', 'p(95)<300', 'http_req_failed: rate<0.01'] },
    {
      type: 'object',
      properties: {
        threshold: { type: 'string' },
        abortOnFail: { type: 'boolean' },
        delayAbortEval: { anyOf: [{ type: 'number' }, { type: 'string', examples: ['10s'] }] },
      },
      required: ['threshold'],
      additionalProperties: false,
    },
  ],
});

/**
 * The start body's fields, each checked on its own. REST's body and the MCP tool's arguments are this
 * one shape (the tool's input schema is built from it); `startBody` adds the rules between fields.
 * A field's own transforms must give the same value when run twice (the MCP SDK parses the arguments
 * with these before `startBody` does): the thresholds are parsed by `startBody`'s transform.
 */
export const startFields = {
  targetUrl: z
    .string({ error: 'must be a string' })
    .min(1, 'is required')
    .optional()
    .describe(
      'The URL to load, http(s); private and internal addresses are refused. Required, ' +
        'but a HAR replay on one origin goes there when it is left out; ' +
        "a replay's requests go to its origin and path, their own path and query appended",
    ),
  httpMethod: z
    .string({ error: 'must be a string' })
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` }))
    .optional()
    .describe('The method of every request (required, but not given with replay: each request has its own)'),
  concurrentUsers: wholeNumber(1, 10_000)
    .optional()
    .describe("Virtual users, 1 to 10000 (at most your plan's); required unless user stages give it (their peak)"),
  testDuration: seconds(10, MAX_TEST_SECONDS)
    .optional()
    .describe(
      'Seconds, 10 to 3600 (at most your plan\'s), or a duration such as "90s", "10m", "1h30m"; ' +
        'required unless stages give it (their total)',
    ),
  rampUpTime: seconds(0, MAX_TEST_SECONDS)
    .optional()
    .describe('Seconds (or a duration such as "30s") to reach all users (default 10, at most testDuration)'),
  requestsPerSecond: wholeNumber(0, 1_000_000)
    .optional()
    .describe('Total arrival rate; 0 (default) = as fast as the users can'),
  iterations: wholeNumber(1, 1_000_000)
    .optional()
    .describe(
      "Each user's requests (or passes through steps), 1 to 1000000: the test ends when every user is done, " +
        "testDuration at the latest (as k6's per-vu-iterations; 1 for a smoke test). " +
        'Closed model, without stages or replay',
    ),
  stages: stagesSchema,
  stageTarget: z
    .enum(['users', 'rate'], { error: 'must be users or rate' })
    .optional()
    .describe(
      'What stage targets are: users (default; closed model) or arrivals per second (open model; ' +
        'concurrentUsers then bounds the requests in flight)',
    ),
  steps: z
    .array(stepSchema(HTTP_METHODS, CLIENT_HEADERS), { error: 'must be a list of steps' })
    .min(1, `must hold 1 to ${MAX_STEPS} steps`)
    .max(MAX_STEPS, `must hold 1 to ${MAX_STEPS} steps`)
    .optional()
    .describe(
      "A scenario each user runs in order (closed model): paths on the target's origin, " +
        "{{name}} placeholders filled from earlier steps' capture {name: JSON pointer}",
    ),
  replay: replaySchema.optional(),
  outputs: outputsSchema.optional(),
  tags: tagsSchema.optional(),
  authType: z
    .enum(['none', 'basic', 'bearer', 'apikey'], { error: 'must be one of none, basic, bearer, apikey' })
    .default('none')
    .describe(
      'Credentials sent with every request (authUsername and authPassword, authToken, or apiKeyHeader and apiKeyValue)',
    ),
  authUsername: headerValue.optional(),
  authPassword: headerValue.optional(),
  authToken: headerValue.optional(),
  apiKeyHeader: z
    .string({ error: 'must be a string' })
    .regex(HEADER_NAME, 'must be a header name')
    .refine((h) => !CLIENT_HEADERS.has(h.toLowerCase()), 'must not be a header the client sets itself')
    .default('X-API-Key'),
  apiKeyValue: headerValue.optional(),
  headers: headerMap(
    50,
    CLIENT_HEADERS,
    `must not set ${[...CLIENT_HEADERS].join(', ')}: the client sets them`,
  ).describe('Extra request headers (at most 50)'),
  body: z.string({ error: 'must be a string' }).optional().describe('Request body, with POST, PUT and PATCH'),
  insecureTls: z
    .boolean({ error: 'must be true or false' })
    .default(false)
    .describe("true: accept the target's invalid certificate"),
  httpVersion: z
    .enum(['1.1', '2'], { error: 'must be "1.1" or "2"' })
    .default('1.1')
    .describe(
      'HTTP/1.1 (default) or HTTP/2: ' +
        'over https negotiated by ALPN (a server without h2 fails the requests with http2_not_offered), ' +
        'over http with prior knowledge (h2c)',
    ),
  http2: z
    .object(
      {
        streamsPerConnection: wholeNumber(1, 1000)
          .default(1)
          .describe(
            'Users sharing one connection, each its own stream, 1 to 1000 (default 1: a connection per user); ' +
              "the server's SETTINGS_MAX_CONCURRENT_STREAMS bounds the streams open at once",
          ),
      },
      { error: 'must be an object {streamsPerConnection}' },
    )
    .strict()
    .optional()
    .describe('HTTP/2 options, with httpVersion "2"'),
  thresholds: z
    .union([z.array(thresholdItem), z.record(z.string(), z.array(thresholdItem))], {
      error: 'must be a list of expressions such as "p99 < 300", or k6\'s object {"http_req_duration": ["p(95)<300"]}',
    })
    .transform(thresholdList)
    .pipe(
      z
        .array(z.unknown())
        .max(MAX_THRESHOLDS, `must hold at most ${MAX_THRESHOLDS} thresholds`)
        // Every refused one is named, not only the first.
        .superRefine((list, ctx) => {
          const refused = refusedThresholds(list);
          if (refused) ctx.addIssue({ code: 'custom', path: refused.path, message: refused.message });
        }),
    )
    .default([])
    .describe(
      'Pass/fail expressions on the merged results, ours or k6\'s: "p95 < 300", "p(95)<300", "error_rate < 1", ' +
        '"http_req_failed: rate<0.01"; {"threshold": ..., "abortOnFail": true} stops the test when it fails; ' +
        'or k6\'s object {"http_req_duration": ["p(95)<300"]}',
    ),
};

export const startBody = z
  .object(startFields)
  .strict()
  .superRefine((b, ctx) => {
    const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
    // Required as the contract has them, unless stages say them (a missing one reads "x is required").
    const required = (field: string, expected: 'number' | 'string' = 'number') =>
      ctx.addIssue({ code: 'invalid_type', expected, path: [field], message: 'is required' });
    if (b.replay) for (const [path, message] of replayFaults(b)) ctx.addIssue({ code: 'custom', path, message });
    else {
      if (b.targetUrl === undefined) required('targetUrl', 'string');
      if (b.httpMethod === undefined) required('httpMethod', 'string');
    }
    if (!b.stages) {
      if (b.stageTarget !== undefined) issue('stageTarget', 'is given only with stages');
      // A replay's users and length have defaults (load-replay.ts).
      if (b.concurrentUsers === undefined && !b.replay) required('concurrentUsers');
      if (b.testDuration === undefined && !b.replay) required('testDuration');
      if (b.rampUpTime !== undefined && b.testDuration !== undefined && b.rampUpTime > b.testDuration)
        issue('rampUpTime', 'must not exceed testDuration');
    } else {
      for (const [path, message] of stageFaults(b)) ctx.addIssue({ code: 'custom', path, message });
      if (b.stageTarget === 'rate' && b.concurrentUsers === undefined) required('concurrentUsers');
    }
    if (b.steps) {
      if ((b.requestsPerSecond ?? 0) > 0 || b.stageTarget === 'rate')
        issue(
          'steps',
          'run in the closed model (each user runs them in order): leave out requestsPerSecond and rate stages',
        );
      if (b.body !== undefined) issue('body', 'is given per step with steps');
      for (const [path, message] of stepFaults(b.steps, b.targetUrl ?? '', b.httpMethod ?? 'GET'))
        ctx.addIssue({ code: 'custom', path, message });
    }
    for (const [path, message] of iterationsFaults(b)) ctx.addIssue({ code: 'custom', path, message });
    if (b.http2 !== undefined && b.httpVersion !== '2') issue('http2', 'is given only with httpVersion "2"');
    if (b.body !== undefined && b.httpMethod && !METHODS_WITH_BODY.has(b.httpMethod))
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'is sent only with POST, PUT and PATCH' });
    const need = { basic: ['authUsername', 'authPassword'], bearer: ['authToken'], apikey: ['apiKeyValue'], none: [] }[
      b.authType
    ] as Array<keyof typeof b>;
    for (const field of need) {
      if (!b[field])
        ctx.addIssue({ code: 'custom', path: [field], message: `is required when authType is ${b.authType}` });
    }
  })
  .transform(({ thresholds: given, ...given_ }) => {
    const thresholds = given.map(parseThreshold).filter((t): t is Threshold => typeof t !== 'string');
    const b = { ...given_, ...replayDefaults(given_) };
    // The contract's fields as stages give them: users and duration, the rate's peak (for the plan's
    // limits and the proof of control).
    if (!b.stages)
      return {
        ...b,
        thresholds,
        stageTarget: 'users' as const,
        concurrentUsers: b.concurrentUsers!,
        testDuration: b.testDuration!,
        rampUpTime: b.rampUpTime ?? 10,
        requestsPerSecond: b.requestsPerSecond ?? 0,
      };
    const peak = b.stages.reduce((n, st) => Math.max(n, st.target), 0);
    const testDuration = b.stages.reduce((n, st) => n + st.duration, 0);
    const users = (b.stageTarget ?? 'users') === 'users';
    return {
      ...b,
      thresholds,
      stageTarget: users ? ('users' as const) : ('rate' as const),
      concurrentUsers: b.concurrentUsers ?? peak,
      testDuration,
      rampUpTime: 0,
      requestsPerSecond: users ? 0 : peak,
    };
  });

export type StartBody = z.output<typeof startBody>;
