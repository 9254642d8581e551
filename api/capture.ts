// The capture URL: `{BASE_URL}/webhook/<webhook_id>[/<any path>]`, any method, no API key.
// This is the hot path, so it is a plain node:http handler in front of Koa: no context objects, no
// auth lookup, no rate-limit round trip, and one shared INSERT per batch of captures (CaptureWriter).
// Errors use the same shape as the rest of the API.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CaptureWriter } from '../db/webhooks/capture-writer.ts';
import type { WebhookResponse } from '../db/schema.ts';
import { climbingSegment } from '../lib/webhooks/capture-path.ts';
import { InvalidInputError, NotFoundError } from '../lib/errors.ts';
import type { Logger } from '../lib/log.ts';
import { errorBody, logFailure, toAppError } from './middleware/errors.ts';
import { readBody, settleUnreadBody } from './read-body.ts';
import { headerObject } from '../lib/net/header-object.ts';
import { stripServiceCredentials } from '../lib/auth/service-credentials.ts';
import { PUBLIC_ID_PATTERN } from '../lib/auth/tokens.ts';
import type { CaptureService } from './services/webhooks/captures.ts';
import { CAPTURE_PREFIX, captureIntake, type CaptureIntake } from './services/webhooks/capture-intake.ts';
import { captureAcknowledgement } from '../lib/webhooks/webhook-rules.ts';
import { NEVER_IN_AN_ANSWER } from '../contract/webhooks/webhook-settings.ts';

/** Bodies above this are refused with 413 and not stored (as other capture services do: 1 MiB). */
export const CAPTURE_BODY_LIMIT_BYTES = 1024 * 1024;

// What a request goes through once read is the capture intake's (services/capture-intake.ts: test events
// take it too); its pieces stay importable from here.
export { CAPTURE_PREFIX, decodeBody, queryObject } from './services/webhooks/capture-intake.ts';

export type CaptureHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Where captures arrive: the service's credentials to drop from them, whether answers may act on the origin. */
export interface CaptureOrigin {
  /** The OAuth issuer (BASE_URL), whose access tokens are removed from captures as its API keys are. */
  issuer: string;
  /**
   * The host of CAPTURE_BASE_URL when it is an origin of its own (else null): answers to requests that
   * reach that host may redirect (`Location`) and name downloads (`Content-Disposition`).
   */
  ownHost: string | null;
}

/** The origin a deployment's captures are served on, from BASE_URL and CAPTURE_BASE_URL. */
export function captureOrigin(baseUrl: string, captureBaseUrl: string): CaptureOrigin {
  const own = new URL(captureBaseUrl);
  return { issuer: baseUrl, ownHost: own.origin === new URL(baseUrl).origin ? null : own.host.toLowerCase() };
}

export function createCaptureHandler(
  writer: CaptureWriter,
  captures: CaptureService,
  logger: Logger,
  clientIp: (req: IncomingMessage) => string,
  origin: CaptureOrigin,
): CaptureHandler {
  const intake = captureIntake(writer, captures);
  return (req, res) => {
    capture(intake, clientIp, origin, req, res).catch((err) => {
      const error = toAppError(err);
      logFailure(logger, error, err, { method: req.method, url: req.url });
      send(res, error.status, errorBody(error), { ...error.headers, ...settleUnreadBody(req) });
    });
  };
}

async function capture(
  intake: CaptureIntake,
  clientIp: (req: IncomingMessage) => string,
  origin: CaptureOrigin,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const rest = path.slice(CAPTURE_PREFIX.length);
  const slash = rest.indexOf('/');
  const webhookId = slash === -1 ? rest : rest.slice(0, slash);
  if (!PUBLIC_ID_PATTERN.test(webhookId)) throw new NotFoundError('Webhook not found');
  const ipAddress = clientIp(req);
  const owner = await intake.admit(webhookId, ipAddress); // 404 unknown, 429 past a bound: before the body is read
  const climbing = climbingSegment(path.slice(CAPTURE_PREFIX.length + webhookId.length));
  if (climbing !== null)
    throw new InvalidInputError(
      `path: the segment ${JSON.stringify(climbing)} is refused: a capture's path may not hold . or .. segments ` +
        '(%2e included), backslashes or encoded slashes (%2f, %5c), which would climb out of a forward target',
      'path',
    );

  const headers = headerObject(req.rawHeaders);
  // A browser sent here carries the service's cookies when capture URLs share its origin: never stored.
  stripServiceCredentials(headers, origin.issuer);
  const raw = await readBody(req, CAPTURE_BODY_LIMIT_BYTES, headers['content-length']);
  // A browser's CORS preflight gets the CORS answer, whatever the owner set: the request it asks about comes next.
  const preflight = req.method === 'OPTIONS' && headers['access-control-request-method'] !== undefined;
  const { answer: owners } = await intake.take(owner, {
    webhookId,
    method: req.method ?? 'GET',
    path,
    query: queryAt === -1 ? null : url.slice(queryAt + 1),
    headers,
    raw,
    ipAddress,
    preflight,
  });

  // Browsers may post to a capture URL from any page.
  const answer: Record<string, string> = { 'Access-Control-Allow-Origin': '*' };
  // The owner's answer, once the capture is stored: a delay holds only this connection, not the writer.
  if (owners) {
    const ownOrigin = origin.ownHost !== null && req.headers.host?.toLowerCase() === origin.ownHost;
    return answerAsOwnerSet(res, owners, answer, req.method === 'HEAD', ownOrigin);
  }
  if (req.method === 'OPTIONS') {
    answer['Access-Control-Allow-Methods'] = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
    answer['Access-Control-Allow-Headers'] = headers['access-control-request-headers'] || '*';
    answer['Access-Control-Max-Age'] = '600';
  }
  send(res, 200, captureAcknowledgement(webhookId), answer, req.method === 'HEAD');
}

/**
 * Capture URLs may share the service's origin: an owner's answer is sandboxed (no script, no fetch, an
 * opaque origin) and never sniffed, whatever its type, so it cannot act as the dashboard's pages.
 */
const SANDBOXED = { 'Content-Security-Policy': "sandbox; default-src 'none'", 'X-Content-Type-Options': 'nosniff' };
/**
 * Headers that act on the origin that sends them, beyond the answer itself: a redirect (an open one,
 * when a rule's template fills it from the request), a download's name, cookies, HSTS for the whole
 * host (max-age=0 clears it), where the browser reports errors and visits (NEL, Report-To,
 * Reporting-Endpoints), the host's alternative services, a password prompt on the service's address
 * (WWW-Authenticate: what is typed would come back as a capture), the origin's sign-in status
 * (Set-Login), its agent clustering and the client hints it asks for. Sent only where capture URLs
 * have an origin of their own.
 */
const ORIGIN_BOUND = new Set([
  'location',
  'content-disposition',
  'set-cookie',
  'set-cookie2',
  'refresh',
  'strict-transport-security',
  'nel',
  'report-to',
  'reporting-endpoints',
  'alt-svc',
  'www-authenticate',
  'set-login',
  'origin-agent-cluster',
  'accept-ch',
  'critical-ch',
]);

/**
 * The headers of an owner's answer: `base` (ours) unless the owner set the same name in any case, a
 * plain-text type for an untyped body, the owner's headers, then the sandbox. What an answer may never
 * set is left out even when stored before it was refused (contract/webhooks/webhook-settings.ts), and
 * what acts on the origin unless the request reached capture URLs' own origin.
 */
export function ownersAnswerHeaders(
  owners: Record<string, string>,
  base: Record<string, string>,
  { ownOrigin, untypedBody }: { ownOrigin: boolean; untypedBody: boolean },
): Record<string, string> {
  const kept = Object.entries(owners).filter(([name]) => {
    const lower = name.toLowerCase();
    return !NEVER_IN_AN_ANSWER.has(lower) && (ownOrigin || !ORIGIN_BOUND.has(lower));
  });
  const set = new Set(kept.map(([name]) => name.toLowerCase()));
  return {
    ...Object.fromEntries(Object.entries(base).filter(([name]) => !set.has(name.toLowerCase()))),
    ...(untypedBody && !set.has('content-type') ? { 'Content-Type': 'text/plain; charset=utf-8' } : {}),
    ...Object.fromEntries(kept),
    ...SANDBOXED,
  };
}

/** The status, headers and body the webhook's owner set, after their delay (nothing when the sender left meanwhile). */
async function answerAsOwnerSet(
  res: ServerResponse,
  response: WebhookResponse,
  base: Record<string, string>,
  headOnly: boolean,
  ownOrigin: boolean,
): Promise<void> {
  if (response.delay_ms > 0) {
    // A sender that leaves ends the wait: nothing is held for it.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, response.delay_ms);
      function done() {
        clearTimeout(timer);
        res.off('close', done);
        resolve();
      }
      res.once('close', done);
    });
  }
  if (res.headersSent || res.destroyed) return;
  const body = Buffer.from(response.body);
  res.writeHead(response.status, {
    ...ownersAnswerHeaders(response.headers, base, { ownOrigin, untypedBody: body.length > 0 }),
    'Content-Length': body.length,
  });
  res.end(headOnly ? undefined : body);
}

function send(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string>,
  headOnly = false,
): void {
  if (res.headersSent) return;
  const json = JSON.stringify(payload);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(headOnly ? undefined : json);
}
