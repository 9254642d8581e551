// The OpenAPI 3.1 document of /api/v1, generated from the zod schemas the routes validate with and
// the response schemas of api/openapi/responses.ts. OPERATIONS is the one list: the document is built
// from it, a test checks it names every route the routers serve, and the integration suites check
// every answer they receive against it (test/support/client.ts), so it cannot drift from the code.
import { z } from 'zod';
import { auditInput, discoverInput } from '../site.ts';
import { bulkBody, bulkQuery, whoisQuery } from '../routes/domains.ts';
import { listQuery, startBody } from '../routes/load-testing.ts';
import { dnsQuery, headersQuery, ipQuery } from '../routes/lookups.ts';
import { deleteBody, requestsQuery, resumeHeaders } from '../routes/webhooks.ts';
import * as R from './responses.ts';

export interface Operation {
  method: 'get' | 'post';
  /** OpenAPI path template under /api/v1, e.g. `/load-testing/status/{test_id}`. */
  path: string;
  summary: string;
  tag: string;
  query?: z.ZodObject;
  /** Request headers the operation reads besides the credentials (lower-case names). */
  headers?: z.ZodObject;
  body?: z.ZodType;
  /** The success status and its body (null body: a Server-Sent Events stream). */
  success: { status: number; schema: z.ZodType | null; description: string };
  /** Error statuses besides 401 and 429, which every operation has. */
  errors: number[];
}

const webhookPath = (path: string) => `/network/${path}`;

export const OPERATIONS: Operation[] = [
  { method: 'post', path: webhookPath('my-webhook-create'), summary: 'Create a webhook and its capture URL', tag: 'Webhooks', success: { status: 201, schema: R.webhookCreateResult, description: 'Created' }, errors: [] },
  { method: 'get', path: webhookPath('my-webhooks'), summary: 'List your webhooks with request counts', tag: 'Webhooks', success: { status: 200, schema: R.webhookListResult, description: 'Your webhooks' }, errors: [] },
  { method: 'get', path: webhookPath('my-webhook-requests'), summary: 'Read the captured requests of a webhook, newest first', tag: 'Webhooks', query: requestsQuery, success: { status: 200, schema: R.webhookRequestsResult, description: 'Captured requests' }, errors: [400, 404] },
  { method: 'get', path: webhookPath('my-webhook-requests/events'), summary: 'New captured requests as Server-Sent Events', tag: 'Webhooks', query: requestsQuery, headers: resumeHeaders, success: { status: 200, schema: null, description: 'text/event-stream: `requests` events (the shape of my-webhook-requests, with the highest capture id sent as the event id), `end` when the webhook is deleted. With Last-Event-ID, only captures after that id.' }, errors: [400, 404] },
  { method: 'post', path: webhookPath('my-webhook-delete'), summary: 'Delete a webhook and what it captured', tag: 'Webhooks', body: deleteBody, success: { status: 200, schema: R.webhookDeleteResult, description: 'Deleted' }, errors: [400, 404] },
  { method: 'get', path: '/network/dns-lookup', summary: 'DNS records of a domain', tag: 'Lookups', query: dnsQuery, success: { status: 200, schema: R.dnsLookupResult, description: 'Records' }, errors: [400, 404, 502, 504] },
  { method: 'get', path: '/network/ip-info', summary: 'Location, network and reverse DNS of an IP (yours when omitted)', tag: 'Lookups', query: ipQuery, success: { status: 200, schema: R.ipInfoResult, description: 'What is known of the address' }, errors: [400] },
  { method: 'get', path: '/network/http-headers', summary: 'Security headers, TLS, caching and cookies of a URL, graded', tag: 'Lookups', query: headersQuery, success: { status: 200, schema: R.httpHeadersResult, description: 'Analysis' }, errors: [400, 502, 504] },
  { method: 'get', path: '/network/whois', summary: 'Registration of a domain (RDAP, WHOIS, DNS) with pricing', tag: 'Domains', query: whoisQuery, success: { status: 200, schema: R.whoisAnswer, description: 'Registration and pricing' }, errors: [400] },
  { method: 'post', path: '/network/domains/check', summary: 'Check up to 100 domains at once', tag: 'Domains', body: bulkBody, success: { status: 200, schema: R.bulkCheckResult, description: 'One entry per name' }, errors: [400, 504] },
  { method: 'get', path: '/network/domains/check', summary: 'Check up to 100 domains at once (query form)', tag: 'Domains', query: bulkQuery, success: { status: 200, schema: R.bulkCheckResult, description: 'One entry per name' }, errors: [400, 504] },
  { method: 'post', path: '/load-testing/start', summary: 'Start a load test (queued until a load worker takes it)', tag: 'Load testing', body: startBody, success: { status: 202, schema: R.loadTestStartResult, description: 'Queued' }, errors: [400] },
  { method: 'get', path: '/load-testing/status/{test_id}', summary: 'Status and live metrics of a load test', tag: 'Load testing', success: { status: 200, schema: R.loadTestStatusAnswer, description: 'Status' }, errors: [404, 503] },
  { method: 'get', path: '/load-testing/status/{test_id}/events', summary: 'Status of a load test as Server-Sent Events, until it ends', tag: 'Load testing', success: { status: 200, schema: null, description: 'text/event-stream: `status` events with the shape of the status answer' }, errors: [404] },
  { method: 'post', path: '/load-testing/stop/{test_id}', summary: 'Stop a running load test', tag: 'Load testing', success: { status: 200, schema: R.loadTestStopResult, description: 'Stopped (or stopping)' }, errors: [404, 409] },
  { method: 'get', path: '/load-testing/results/{test_id}', summary: 'Final results of an ended load test', tag: 'Load testing', success: { status: 200, schema: R.loadTestResultsAnswer, description: 'Results' }, errors: [404, 409] },
  { method: 'get', path: '/load-testing/tests', summary: 'Your load tests, newest first', tag: 'Load testing', query: listQuery, success: { status: 200, schema: R.loadTestListResult, description: 'Tests' }, errors: [400] },
  { method: 'post', path: '/site/discover', summary: 'Up to 20 pages of a site, from its sitemaps or home page links', tag: 'Sites', body: discoverInput, success: { status: 200, schema: R.siteDiscoverResult, description: 'Pages' }, errors: [400, 502, 504] },
  { method: 'post', path: '/site/audit', summary: 'Design audit of one page (template, alignment, accessibility, style budget)', tag: 'Sites', body: auditInput, success: { status: 200, schema: R.siteAuditResult, description: 'Findings and summary' }, errors: [400, 502, 504] },
  { method: 'post', path: '/diagnostics/pipeline-checks', summary: 'Start the pipeline check (API -> workflow -> every pool)', tag: 'Diagnostics', success: { status: 202, schema: R.pipelineCheckStartResult, description: 'Started' }, errors: [] },
  { method: 'get', path: '/diagnostics/pipeline-checks/{check_id}', summary: 'State of a pipeline check', tag: 'Diagnostics', success: { status: 200, schema: R.pipelineCheckStatusResult, description: 'State' }, errors: [404, 503] },
];

/** Every operation also answers these (authentication and rate limits), and 413 for large bodies. */
export const COMMON_ERRORS = [401, 429];
const BODY_ERRORS = [413];

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input: the message names the field',
  401: 'Missing, invalid or revoked API key',
  404: 'Unknown, or not yours',
  409: 'Not in a state that allows this',
  413: 'Body too large',
  429: 'Rate limit of the plan reached (see Retry-After)',
  502: 'The target or an upstream answered something unusable',
  503: 'No worker answered',
  504: 'An upstream or the job took too long',
};

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  // Input view: optional defaults stay optional, and objects accept fields they do not name.
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

function parametersOf(schema: z.ZodObject | undefined, where: 'query' | 'header') {
  if (!schema) return [];
  const { properties = {}, required = [] } = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(properties).map(([name, s]) => ({ name, in: where, required: required.includes(name), schema: s }));
}

export function statusesOf(op: Operation): number[] {
  return [op.success.status, ...op.errors, ...COMMON_ERRORS, ...(op.body ? BODY_ERRORS : [])];
}

export function buildOpenApi(baseUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const parameters = [
      ...[...op.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } })),
      ...parametersOf(op.query, 'query'),
      ...parametersOf(op.headers, 'header'),
    ];
    const responses: Record<string, unknown> = {
      [op.success.status]: {
        description: op.success.description,
        content: op.success.schema ? { 'application/json': { schema: jsonSchema(op.success.schema) } } : { 'text/event-stream': { schema: { type: 'string' } } },
      },
    };
    for (const status of statusesOf(op).slice(1)) responses[status] = { description: ERROR_TEXT[status] ?? 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    (paths[`/api/v1${op.path}`] ??= {})[op.method] = {
      summary: op.summary,
      tags: [op.tag],
      operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      ...(parameters.length ? { parameters } : {}),
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'netops API', version: '1', description: 'Network tools, webhook capture, load testing and site audits. Authenticate with X-API-Key or Authorization: Bearer (an API key). The MCP endpoint (/mcp) uses OAuth instead and is not described here.' },
    servers: [{ url: baseUrl }],
    security: [{ ApiKey: [] }, { BearerApiKey: [] }],
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        BearerApiKey: { type: 'http', scheme: 'bearer', description: 'The same API key as a bearer token' },
      },
      schemas: { Error: jsonSchema(R.errorResult) },
    },
    paths,
  };
}

/** The operation a request went to, by method and concrete path (`/api/v1/...`, query excluded). */
export function operationFor(method: string, path: string): Operation | undefined {
  const m = method.toLowerCase();
  const bare = path.replace(/^\/api\/v1/, '').split('?')[0]!;
  return OPERATIONS.find((op) => op.method === m && new RegExp(`^${op.path.replace(/\{[a-z_]+\}/g, '[^/]+')}$`).test(bare));
}
