// Load tests: start (its body: load-test-start.ts), status (also as a stream), stop, results, history.
import { z } from 'zod';
import { startBody } from './load-test-start.ts';
import { SERIES_COLUMNS } from './series-columns.ts';
import { accepted, get, ok, operations, post } from '../operation.ts';
import * as R from './responses-load-tests.ts';
import { described } from '../validate.ts';
import { PATH_PARAMS, publicIdField, wholeNumberParam } from '../input-fields.ts';

export const listQuery = z.object({
  limit: described(wholeNumberParam(1, 100).default(20), 'How many, 1 to 100 (default 20)'),
});

/** The test a status, stop or results names in its path ({test_id}), and an MCP tool in its arguments. */
export const testIdParams = z.strictObject({ test_id: PATH_PARAMS.test_id });

export const seriesQuery = z.object({
  format: z.enum(['ndjson', 'csv'], { error: 'must be ndjson or csv' }).default('ndjson'),
  from: wholeNumberParam(0, 3600).default(0),
});

export const verifyTargetBody = z.strictObject({
  targetUrl: described(z.string({ error: 'must be a string' }).min(1, 'is required'), 'The URL you want to load test'),
});

export const reportQuery = z.object({
  compare: described(publicIdField('a load test'), 'Another of your ended tests, shown beside this one').optional(),
  format: z.enum(['html', 'json'], { error: 'must be html or json' }).default('html'),
});

export const loadTestOperations = operations('Load testing', {
  report: get('/load-testing/report/{test_id}', {
    summary:
      'The report of an ended load test: one self-contained HTML file (no network access when ' +
      'opened), beside another of yours with compare; format=json gives its data',
    query: reportQuery,
    success: ok(null, 'text/html (or application/json with format=json)'),
    errors: [400, 404, 409],
  }),
  verifyTarget: post('/load-testing/targets', {
    summary:
      'Your token to prove you control a target host (needed before large tests), and whether the host serves it now',
    body: verifyTargetBody,
    success: ok(R.targetVerificationResult, 'The token, how to serve it, and whether it is served'),
    errors: [400],
  }),
  start: post('/load-testing/start', {
    summary: 'Start a load test (queued until a load worker takes it)',
    body: startBody,
    success: accepted(R.loadTestStartResult, 'Queued'),
    // 404: a replay of a webhook that is not the caller's.
    errors: [400, 403, 404],
  }),
  status: get('/load-testing/status/{test_id}', {
    summary: 'Status and live metrics of a load test',
    success: ok(R.loadTestStatusAnswer, 'Status'),
    errors: [404],
  }),
  events: get('/load-testing/status/{test_id}/events', {
    summary: 'Status of a load test as Server-Sent Events, until it ends',
    success: ok(null, 'text/event-stream: `status` events with the shape of the status answer'),
    errors: [404],
  }),
  series: get('/load-testing/series/{test_id}', {
    summary: "A load test's figures for every second, as NDJSON or CSV: streamed while it runs, all at once after",
    query: seriesQuery,
    success: ok(
      null,
      'application/x-ndjson (one JSON object a second) or text/csv (a header row, then a row a ' +
        `second): ${SERIES_COLUMNS.join(', ')}`,
    ),
    errors: [400, 404],
  }),
  stop: post('/load-testing/stop/{test_id}', {
    summary: 'Stop a running load test',
    success: ok(R.loadTestStopResult, 'Stopped (or stopping)'),
    errors: [404, 409],
  }),
  results: get('/load-testing/results/{test_id}', {
    summary: 'Final results of an ended load test',
    success: ok(R.loadTestResultsAnswer, 'Results'),
    errors: [404, 409],
  }),
  list: get('/load-testing/tests', {
    summary: 'Your load tests, newest first',
    query: listQuery,
    success: ok(R.loadTestListResult, 'Tests'),
    errors: [400],
  }),
});
