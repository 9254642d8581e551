// The signed-in user's data as MCP resources, read by URI through the same services as the tools and
// REST (one owner check: an unknown and a foreign id are the same "not found"):
//   netops://webhooks/{webhook_id}/requests          a webhook's newest captures
//   netops://webhooks/{webhook_id}/requests/{n}      one capture
//   netops://load-tests/{test_id}/results            an ended load test's results
//   netops://load-tests/{test_id}/report             its report (what the dashboard's report page draws)
// Listed per account and bounded (the newest LISTED of each kind): a client reads older ones by URI.
// Reads and lists spend the plan's limit as a tool call does.
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  ResourceNotFoundError,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { AppError, NotFoundError, type RateLimitedError } from '../../lib/errors.ts';
import { temporalOutage } from '../../lib/temporal/jobs.ts';
import type { Logger } from '../../lib/log.ts';
import type { Plan } from '../../lib/plans.ts';
import { registerLoadTestApp } from './apps/app-load-test.ts';
import { loadReportService } from '../services/load-tests/load-report.ts';
import type { LoadTestService } from '../services/load-tests/load-tests.ts';
import type { QuotaService, QuotaVerdict } from '../services/quota.ts';
import type { WebhookService } from '../services/webhooks/webhooks.ts';

/** How many resources of each kind resources/list names (newest first). */
export const LISTED = 50;
/** A body longer than this is left out of a webhook's capture listing (its capture's own URI has it). */
const LISTED_BODY_CHARS = 4096;

export interface ResourceDeps {
  webhooks: WebhookService;
  loadTests?: LoadTestService;
  quota: QuotaService;
  logger: Logger;
}

const JSON_TYPE = 'application/json';
export const capturesUri = (webhookId: string) => `netops://webhooks/${encodeURIComponent(webhookId)}/requests`;
export const captureUri = (webhookId: string, id: number) => `${capturesUri(webhookId)}/${id}`;
const testUri = (testId: string, what: 'results' | 'report') =>
  `netops://load-tests/${encodeURIComponent(testId)}/${what}`;

/**
 * A resource method refused by the plan: a server error of JSON-RPC's implementation-defined range, its
 * message naming the full window, its data when to retry. (Here, not in run.ts: the API loads run.ts at
 * start, and the MCP SDK only at the first MCP request.)
 */
export const RATE_LIMITED = -32029;
/** A refusal of the plan's bounds as the protocol's error (its retry in `data`). */
export const rateLimited = (err: RateLimitedError) =>
  new ProtocolError(RATE_LIMITED, err.message, { retry_after_seconds: Number(err.headers['Retry-After']) });

export function registerResources(
  server: McpServer,
  deps: ResourceDeps,
  account: { userId: number; plan: Plan },
  era: 'legacy' | 'modern' = 'legacy',
) {
  // A webhook's captures can be followed with subscriptions/listen (2026-07-28: api/mcp/subscriptions.ts);
  // 2025-11-25's resources/subscribe needs a session's stream, which /mcp does not keep.
  if (era === 'modern') server.server.registerCapabilities({ resources: { subscribe: true } });
  const { webhooks, loadTests } = deps;
  const { userId } = account;

  // A resources/list calls every template's list with its one context: it spends once, each list a request
  // (a batch of them in one HTTP request spends once for each).
  const listings = new WeakMap<object, Promise<QuotaVerdict>>();
  const spend = (first: unknown) => {
    if (first instanceof URL || first === null || typeof first !== 'object') return deps.quota.spend(account);
    const spent = listings.get(first) ?? deps.quota.spend(account);
    listings.set(first, spent);
    return spent;
  };
  /** Spends the plan's limit, then answers; the services' errors become the protocol's. */
  const guarded =
    <A extends unknown[], T>(body: (...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      const verdict = await spend(args[0]);
      if (!verdict.allowed) throw rateLimited(deps.quota.refusal(account.plan, verdict));
      try {
        return await body(...args);
      } catch (thrown) {
        throw asProtocolError(thrown, args[0] instanceof URL ? args[0].href : '', deps.logger);
      }
    };
  const json = (uri: URL, data: unknown): ReadResourceResult => ({
    contents: [{ uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(data) }],
  });
  const variable = (v: string | string[] | undefined) => {
    const raw = String(Array.isArray(v) ? v[0] : v);
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw; // not an id of ours either way: not found
    }
  };

  /**
   * The account's webhooks, newest first, LISTED at most: read once per server, that is per HTTP request
   * (the templates' lists of one resources/list, and each listing of a batch, share the read).
   */
  const webhookList = once(() => webhooks.list(account));
  const newestWebhooks = async () => (await webhookList()).webhooks.slice(0, LISTED);

  server.registerResource(
    'webhook-captures',
    new ResourceTemplate('netops://webhooks/{webhook_id}/requests', {
      list: guarded(async () => ({
        resources: (await newestWebhooks()).map(
          (w): Resource => ({
            uri: capturesUri(w.webhook_id),
            name: `webhook-${w.webhook_id}-requests`,
            title: `Captures of webhook ${w.webhook_id}`,
            description: `The newest requests sent to ${w.webhook_url} (${w.request_count} kept)`,
            mimeType: JSON_TYPE,
          }),
        ),
      })),
    }),
    {
      title: 'A webhook’s captures',
      description:
        `The newest ${LISTED} requests ` +
        'one of your webhooks captured, newest first ' +
        '(as webhook_requests answers: fewer when their bodies come to more than 8 MiB).',
      mimeType: JSON_TYPE,
    },
    guarded(async (uri, { webhook_id }) => {
      const id = variable(webhook_id);
      const found = await webhooks.search(userId, id, { filter: {}, limit: LISTED });
      // A listing of bodies up to 1 MiB each would be tens of megabytes: a large body is read by its own URI.
      const requests = found.requests.map((c) =>
        c.body !== null && c.body.length > LISTED_BODY_CHARS
          ? { ...c, body: null, body_omitted: `${c.body.length} characters: read ${captureUri(id, c.id)}` }
          : c,
      );
      return json(uri, { ...found, requests });
    }),
  );

  server.registerResource(
    'webhook-capture',
    new ResourceTemplate('netops://webhooks/{webhook_id}/requests/{n}', {
      // The newest captures of the account, LISTED in all, from its newest webhooks on.
      list: guarded(async () => {
        const resources: Resource[] = [];
        for (const w of await newestWebhooks()) {
          if (resources.length >= LISTED) break;
          if (w.request_count === 0) continue;
          const page = await webhooks.search(userId, w.webhook_id, { filter: {}, limit: LISTED - resources.length });
          for (const c of page.requests)
            resources.push({
              uri: captureUri(w.webhook_id, c.id),
              name: `webhook-${w.webhook_id}-request-${c.id}`,
              title: `${c.method} ${c.path} on webhook ${w.webhook_id}`,
              description: `Captured ${c.created_at}`,
              mimeType: JSON_TYPE,
            });
        }
        return { resources };
      }),
    }),
    {
      title: 'A captured request',
      description:
        'One request a webhook of yours captured: method, path, headers, query, body, sender, ' +
        'and the signature and schema checks when set.',
      mimeType: JSON_TYPE,
    },
    guarded(async (uri, { webhook_id, n }) => {
      const id = Number(variable(n));
      const webhookId = variable(webhook_id);
      if (!Number.isSafeInteger(id) || id < 1)
        throw new NotFoundError(`No capture ${variable(n)} among those webhook ${webhookId} keeps`);
      return json(uri, await webhooks.captured(userId, webhookId, id));
    }),
  );

  if (!loadTests) return;
  registerLoadTestApp(server);
  const reports = loadReportService({ loadTests });
  /** The account's ended tests, newest first (only an ended test has results and a report). */
  const endedTests = async () =>
    (await loadTests.list(userId, LISTED)).data.tests.filter((t) => !['pending', 'running'].includes(t.status));
  const testResource = (what: 'results' | 'report', title: string, description: string, read: typeof readResults) =>
    server.registerResource(
      `load-test-${what}`,
      new ResourceTemplate(`netops://load-tests/{test_id}/${what}`, {
        list: guarded(async () => ({
          resources: (await endedTests()).map(
            (t): Resource => ({
              uri: testUri(t.test_id, what),
              name: `load-test-${t.test_id}-${what}`,
              title: `${title} ${t.test_id}`,
              description: `${t.status} ${t.created_at}`,
              mimeType: JSON_TYPE,
            }),
          ),
        })),
      }),
      { title, description, mimeType: JSON_TYPE },
      guarded(async (uri, { test_id }) => json(uri, await read(variable(test_id)))),
    );
  const readResults = async (testId: string): Promise<unknown> => loadTests.results(testId, userId);
  testResource(
    'results',
    'Load test results',
    'An ended load test of yours: totals, percentiles, error breakdown, verdict (as load_test_results answers).',
    readResults,
  );
  testResource(
    'report',
    'Load test report',
    'The report of an ended load test of yours: its timeline, answers by status and protocol, ' +
      'and why it failed when it did.',
    (testId) => reports.report(testId, userId),
  );
}

/** `make`'s value, made at the first call. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    if (!made) made = { value: make() };
    return made.value;
  };
}

/**
 * A service's error as the protocol says it: not found (-32602 with the URI), the caller's fault as said, ours hidden.
 */
function asProtocolError(thrown: unknown, uri: string, logger: Logger): Error {
  const err = temporalOutage(thrown) ?? thrown;
  if (err instanceof ProtocolError) return err;
  if (err instanceof NotFoundError) return new ResourceNotFoundError(uri, `Resource ${uri} not found: ${err.message}`);
  if (err instanceof AppError && err.isCallersFault)
    return new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
  if (err instanceof AppError)
    return new ProtocolError(
      ProtocolErrorCode.InternalError,
      `${err.message} (an upstream failed or timed out: trying again later may work)`,
    );
  logger.error({ err, uri }, 'MCP resource failed');
  return new ProtocolError(ProtocolErrorCode.InternalError, 'Reading this resource failed on our side.');
}
