// Sending a capture again (a replay the user asks for, a forward of each new capture): its method,
// headers (without the hop-by-hop ones and those that frame the request, which the client sets) and
// body byte for byte; the URL is the target plus the path the sender called below the webhook and
// its query as it was sent (lib/webhooks/capture-query.ts).
import { confinedPath } from './capture-path.ts';
import { type CaptureQuery, sentQuery } from './capture-query.ts';
import { CONNECTION_HEADERS } from '../net/header-object.ts';

/** Not sent again: the connection's own, and those the client computes for the new request. */
const NOT_RESENT = new Set(['host', ...CONNECTION_HEADERS, 'expect']);

/**
 * What a forwarded capture carries besides the sender's headers: which capture it is (receivers can
 * drop a repeat: delivery is at least once), and a mark that stops this service from forwarding it
 * again should it come back to one of its own capture URLs (forwarding would go round in circles).
 */
export const DELIVERY_HEADER = 'x-netops-delivery';

/** A capture as stored (db/webhooks/webhooks.ts's CapturedRequest has these). */
export interface StoredCapture extends CaptureQuery {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null;
  bodyEncoding: 'utf8' | 'base64';
}

/** The request that sends `capture`, taken at `/webhook/<webhookId>...`, to `targetUrl`. */
export function resentRequest(
  capture: StoredCapture,
  webhookId: string,
  targetUrl: string,
): { url: string; method: string; headers: Record<string, string>; body: Buffer | undefined } {
  const below = capture.path.slice(`/webhook/${webhookId}`.length);
  const url = appendedUrl(new URL(targetUrl), below, sentQuery(capture) ?? '');
  const headers = resentHeaders(Object.entries(capture.headers));
  const body =
    capture.body === null
      ? undefined
      : Buffer.from(capture.body, capture.bodyEncoding === 'base64' ? 'base64' : 'utf8');
  return { url, method: capture.method, headers, body };
}

/**
 * The request target (path and query) of a URL that resentRequest made, spelled as the sender spelled
 * it: to send in place of the one a URL parser gives, which re-spells some characters a sender may
 * send raw (`"`, `'`, `<`, `>`).
 */
export function sentTarget(url: string): string {
  const rest = url.slice(new URL(url).origin.length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * `target` with `below` after its path (never climbing out of it, see capture-path.ts) and `query`
 * (without its "?", as sent: nothing re-encoded) after its own query.
 */
export function appendedUrl(target: URL, below: string, query: string): string {
  const search = query ? `${target.search ? `${target.search}&` : '?'}${query}` : target.search;
  return `${target.origin}${target.pathname.replace(/\/$/, '')}${confinedPath(below)}${search}`;
}

/**
 * The headers that are sent again, names in lower case: not the connection's own, those the client sets, HTTP/2's
 * pseudo-headers.
 */
export function resentHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  const kept: Record<string, string> = Object.create(null); // a header named __proto__ is data too
  for (const [given, value] of headers) {
    const name = given.toLowerCase();
    if (NOT_RESENT.has(name) || name.startsWith(':')) continue;
    kept[name] = Object.hasOwn(kept, name) ? `${kept[name]}${name === 'cookie' ? '; ' : ', '}${value}` : value;
  }
  return kept;
}
