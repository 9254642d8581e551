// The OpenAPI 3.1 document of /api/v1, built from the operation declarations of contract/ (the
// same ones the routers serve, with the zod schemas they validate with and the response schemas).
// The integration suites check every answer they receive against it (test/support/client.ts).
import { z } from 'zod';
import { OPERATIONS } from '../../contract/index.ts';
import type { Operation } from '../../contract/operation.ts';
import * as R from '../../contract/responses.ts';

/**
 * Every operation: a query parameter it does not know is refused (400), as are a bad key and the rate limit;
 * and any can answer 503 while a server it needs is away or no workflows worker answers (docs/outages.md).
 * An operation with a body also answers 413.
 */
export const COMMON_ERRORS = [400, 401, 429, 503];
const BODY_ERRORS = [413];

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input: the message names the field',
  401: 'Missing, invalid or revoked API key',
  403: "Past a count bound of your plan (webhooks owned, a load test's size): the message names it",
  404: 'Unknown, or not yours',
  409: 'Not in a state that allows this',
  413: 'Body too large',
  429: 'Rate limit of the plan reached, or its live streams or load tests at once (see Retry-After)',
  502: 'The target or an upstream answered something unusable',
  503: 'A server the service needs is away (see Retry-After), or no workflows worker answered: try again',
  504: 'An upstream or the job took too long',
};

/**
 * A path as the rest of an operation's id, after its method: `/diagnostics/pipeline-checks/{check_id}`
 * as `DiagnosticsPipelineChecksCheckId`.
 */
function pathWords(path: string): string {
  return path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''));
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  // Input view: optional defaults stay optional, and objects accept fields they do not name.
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

function parametersOf(schema: z.ZodObject | undefined, where: 'path' | 'query' | 'header') {
  if (!schema) return [];
  const { properties = {}, required = [] } = jsonSchema(schema) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: required.includes(name),
    schema: s,
  }));
}

export function statusesOf(op: Operation): number[] {
  return [...new Set([op.success.status, ...op.errors, ...COMMON_ERRORS, ...(op.body ? BODY_ERRORS : [])])];
}

export function buildOpenApi(baseUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const parameters = [
      ...parametersOf(op.params, 'path'),
      ...parametersOf(op.query, 'query'),
      ...parametersOf(op.headers, 'header'),
    ];
    const responses: Record<string, unknown> = {
      [op.success.status]: {
        description: op.success.description,
        content: op.success.schema
          ? { 'application/json': { schema: jsonSchema(op.success.schema) } }
          : { 'text/event-stream': { schema: { type: 'string' } } },
      },
    };
    for (const status of statusesOf(op).slice(1))
      responses[status] = {
        description: ERROR_TEXT[status] ?? 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    paths[`/api/v1${op.path}`] ??= {};
    paths[`/api/v1${op.path}`]![op.method] = {
      summary: op.summary,
      tags: [op.tag],
      operationId: `${op.method}${pathWords(op.path)}`,
      ...(parameters.length ? { parameters } : {}),
      ...(op.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body) } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'netops API',
      version: '1',
      description:
        'Network tools, webhook capture, load testing and site audits. ' +
        'Authenticate with X-API-Key or Authorization: Bearer (an API key). ' +
        'The MCP endpoint (/mcp) uses OAuth instead and is not described here.',
    },
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
  return OPERATIONS.find(
    (op) => op.method === m && new RegExp(`^${op.path.replace(/\{[a-z_]+\}/g, '[^/]+')}$`).test(bare),
  );
}
