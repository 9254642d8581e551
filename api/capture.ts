// The capture URL: `{BASE_URL}/webhook/<webhook_id>[/<any path>]`, any method, no API key.
// This is the hot path: no auth lookup, no rate-limit round trip, one shared INSERT per batch.
import type { Middleware } from 'koa';
import type { CaptureWriter } from '../db/capture-writer.ts';
import type { CaptureRecord } from '../db/webhooks.ts';
import { NotFoundError } from '../lib/errors.ts';
import { readRawBody } from './middleware/json-body.ts';

/** Bodies above this are refused with 413 and not stored (as other capture services do: 1 MiB). */
export const CAPTURE_BODY_LIMIT_BYTES = 1024 * 1024;
/** Captured requests kept per webhook; the oldest are dropped beyond this. */
export const CAPTURE_KEEP_PER_WEBHOOK = 500;

const PREFIX = '/webhook/';
const WEBHOOK_ID = /^[A-Za-z0-9_-]{1,64}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function captureWebhooks(writer: CaptureWriter): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(PREFIX)) return next();
    const rest = ctx.path.slice(PREFIX.length);
    const slash = rest.indexOf('/');
    const webhookId = slash === -1 ? rest : rest.slice(0, slash);
    if (!WEBHOOK_ID.test(webhookId)) throw new NotFoundError('Webhook not found');

    // Browsers may post to a capture URL from any page.
    ctx.set('Access-Control-Allow-Origin', '*');
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', ctx.get('access-control-request-headers') || '*');
      ctx.set('Access-Control-Max-Age', '600');
    }

    const raw = await readRawBody(ctx.req, CAPTURE_BODY_LIMIT_BYTES);
    const stored = await writer.write(toRecord(ctx, webhookId, raw));
    if (!stored) throw new NotFoundError('Webhook not found');
    ctx.body = { success: true, message: 'Request captured', webhook_id: webhookId };
  };
}

function toRecord(ctx: Parameters<Middleware>[0], webhookId: string, raw: Buffer): CaptureRecord {
  const { body, encoding } = decodeBody(raw);
  const originalUrl = ctx.req.url ?? ctx.path;
  const query = originalUrl.indexOf('?');
  return {
    webhookId,
    method: ctx.method,
    path: query === -1 ? originalUrl : originalUrl.slice(0, query),
    headers: headerObject(ctx.req.rawHeaders),
    body,
    bodyEncoding: encoding,
    bodySize: raw.length,
    queryParams: query === -1 || query === originalUrl.length - 1 ? null : JSON.stringify(queryObject(originalUrl.slice(query + 1))),
    ipAddress: clientIp(ctx.req.socket.remoteAddress),
    userAgent: ctx.get('user-agent'),
    createdAt: new Date(),
  };
}

/** Text when the bytes are UTF-8 (and free of NUL, which Postgres text cannot hold); else base64. */
export function decodeBody(raw: Buffer): { body: string | null; encoding: 'utf8' | 'base64' } {
  if (raw.length === 0) return { body: null, encoding: 'utf8' };
  if (!raw.includes(0)) {
    try {
      return { body: utf8.decode(raw), encoding: 'utf8' };
    } catch {
      // not UTF-8: keep it byte for byte below
    }
  }
  return { body: raw.toString('base64'), encoding: 'base64' };
}

/** Lower-case names; a repeated header's values joined with ", " as HTTP allows. */
export function headerObject(rawHeaders: string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null); // a header named __proto__ is data too
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}

/** Query parameters as an object; a repeated name gives an array of its values. */
export function queryObject(search: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of new URLSearchParams(search)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function clientIp(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
