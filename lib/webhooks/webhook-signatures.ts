// Whether a captured request's signature would verify, for the common schemes, each as its provider
// documents it: Stripe (Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">, 5 minutes'
// tolerance), GitHub (X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>), Slack
// (X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:timestamp:body">, X-Slack-Request-Timestamp, 5
// minutes), Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: "v1,<base64>" ...,
// secret "whsec_<base64>", 5 minutes) and a plain HMAC-SHA256 of the body in a header the owner names
// (hex or base64, "sha256=" allowed). Times are judged against when the request was captured.
// Signing is the mirror of the check, here beside it, so each scheme's format is known in one place:
// test events (lib/webhooks/webhook-events/) are signed as their provider signs, and the check says valid.
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_SCHEMES = ['stripe', 'github', 'slack', 'standard-webhooks', 'hmac-sha256'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];
/** Seconds a signed timestamp may be from the capture's time. */
export const TOLERANCE_SECONDS = 300;

export interface SignatureCheck {
  status: 'valid' | 'invalid' | 'missing';
  reason: string;
}

export interface SignedRequest {
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
  capturedAt: Date;
}

const hmac = (key: KeyObject, data: Buffer | string) => createHmac('sha256', key).update(data).digest();
const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);
const fromHex = (s: string) => (/^[0-9a-f]+$/i.test(s) && s.length % 2 === 0 ? Buffer.from(s, 'hex') : Buffer.alloc(0));
const valid = (reason: string): SignatureCheck => ({ status: 'valid', reason });
const invalid = (reason: string): SignatureCheck => ({ status: 'invalid', reason });
const missing = (header: string): SignatureCheck => ({ status: 'missing', reason: `no ${header} header` });

/** What each scheme signs besides the body's bytes, before them; and Standard Webhooks' key. */
const stripeSigned = (t: string, body: Buffer) => Buffer.concat([Buffer.from(`${t}.`), body]);
const slackSigned = (ts: string, body: Buffer) => Buffer.concat([Buffer.from(`v0:${ts}:`), body]);
const standardSigned = (id: string, ts: string, body: Buffer) => Buffer.concat([Buffer.from(`${id}.${ts}.`), body]);
const standardKey = (secret: string) => Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
/**
 * The key each scheme's HMAC takes: Standard Webhooks' the bytes its secret encodes, the others' the
 * secret's own. A KeyObject, made once for many (a listing checks a page of captures): an HMAC given its
 * key as bytes takes longer (docs/benchmarks.md: signature checks in a listing).
 */
const hmacKey = (scheme: SignatureScheme, secret: string): KeyObject =>
  createSecretKey(scheme === 'standard-webhooks' ? standardKey(secret) : Buffer.from(secret, 'utf8'));

function onTime(timestamp: string, capturedAt: Date): string | null {
  if (!/^\d{1,12}$/.test(timestamp)) return `the timestamp "${timestamp.slice(0, 20)}" is not a number of seconds`;
  const off = Math.abs(capturedAt.getTime() / 1000 - Number(timestamp));
  return off > TOLERANCE_SECONDS
    ? `the timestamp is ${Math.round(off)} s from the capture's time (at most ${TOLERANCE_SECONDS})`
    : null;
}

/** `header` is used by hmac-sha256 only (lower-case). */
export function checkSignature(
  scheme: SignatureScheme,
  secret: string,
  header: string,
  req: SignedRequest,
): SignatureCheck {
  return signatureChecker(scheme, secret, header)(req);
}

/** checkSignature of many requests with the same secret: its key is made once. */
export function signatureChecker(
  scheme: SignatureScheme,
  secret: string,
  header: string,
): (req: SignedRequest) => SignatureCheck {
  const key = hmacKey(scheme, secret);
  return (req) => check(scheme, key, header, req);
}

function check(scheme: SignatureScheme, key: KeyObject, header: string, req: SignedRequest): SignatureCheck {
  // Only the request's own headers (a name like "constructor" is not an object's property here).
  const own = (name: string) =>
    Object.hasOwn(req.headers, name) && typeof req.headers[name] === 'string' ? req.headers[name] : undefined;
  switch (scheme) {
    case 'stripe': {
      const given = own('stripe-signature');
      if (!given) return missing('Stripe-Signature');
      const parts = given.split(',').map((p) => p.trim().split('='));
      const t = parts.find(([k]) => k === 't')?.[1];
      const v1 = parts.filter(([k]) => k === 'v1').map(([, v]) => fromHex(v ?? ''));
      if (!t || v1.length === 0) return invalid('Stripe-Signature has no t= and v1= parts');
      const late = onTime(t, req.capturedAt);
      if (late) return invalid(late);
      const expected = hmac(key, stripeSigned(t, req.body));
      return v1.some((s) => sameBytes(s, expected))
        ? valid('a v1 signature matches')
        : invalid('no v1 signature matches the body with this secret');
    }
    case 'github': {
      const given = own('x-hub-signature-256');
      if (!given) return missing('X-Hub-Signature-256');
      if (!given.startsWith('sha256=')) return invalid('X-Hub-Signature-256 does not start with sha256=');
      return sameBytes(fromHex(given.slice(7)), hmac(key, req.body))
        ? valid('sha256 matches')
        : invalid('sha256 does not match the body with this secret');
    }
    case 'slack': {
      const given = own('x-slack-signature');
      const ts = own('x-slack-request-timestamp');
      if (!given) return missing('X-Slack-Signature');
      if (!ts) return missing('X-Slack-Request-Timestamp');
      const late = onTime(ts, req.capturedAt);
      if (late) return invalid(late);
      if (!given.startsWith('v0=')) return invalid('X-Slack-Signature does not start with v0=');
      return sameBytes(fromHex(given.slice(3)), hmac(key, slackSigned(ts, req.body)))
        ? valid('v0 matches')
        : invalid('v0 does not match the body with this secret');
    }
    case 'standard-webhooks': {
      const id = own('webhook-id');
      const ts = own('webhook-timestamp');
      const given = own('webhook-signature');
      if (!given) return missing('webhook-signature');
      if (!id || !ts) return invalid('webhook-id or webhook-timestamp is missing');
      const late = onTime(ts, req.capturedAt);
      if (late) return invalid(late);
      const expected = hmac(key, standardSigned(id, ts, req.body));
      const v1 = given
        .split(' ')
        .filter((s) => s.startsWith('v1,'))
        .map((s) => Buffer.from(s.slice(3), 'base64'));
      if (v1.length === 0) return invalid('webhook-signature has no v1 signature');
      return v1.some((s) => sameBytes(s, expected))
        ? valid('a v1 signature matches')
        : invalid('no v1 signature matches with this secret');
    }
    case 'hmac-sha256': {
      const raw = own(header);
      if (!raw) return missing(header);
      const given = raw.startsWith('sha256=') ? raw.slice(7) : raw;
      const expected = hmac(key, req.body);
      const asHex = fromHex(given);
      const asBase64 = /^[A-Za-z0-9+/_-]+={0,2}$/.test(given) ? Buffer.from(given, 'base64') : Buffer.alloc(0);
      return sameBytes(asHex, expected) || sameBytes(asBase64, expected)
        ? valid(`${header} matches`)
        : invalid(`${header} does not match the body with this secret`);
    }
  }
}

/** What signing needs besides the secret: the bytes, when they are sent and the message's id. */
export interface SigningInput {
  body: Buffer;
  /** When it is sent: the timestamp that Stripe, Slack and Standard Webhooks sign. */
  at: Date;
  /** The message's id (Standard Webhooks' webhook-id, which it signs). */
  messageId: string;
}

/**
 * The headers (lower-case names) with which `scheme`'s provider signs a request, as checkSignature
 * reads them: GitHub's SHA-1 X-Hub-Signature too, which it still sends. `header` is used by hmac-sha256
 * only (a hex digest, as most senders of that scheme send it).
 */
export function signatureHeaders(
  scheme: SignatureScheme,
  secret: string,
  header: string,
  { body, at, messageId }: SigningInput,
): Record<string, string> {
  const t = String(Math.floor(at.getTime() / 1000));
  const key = hmacKey(scheme, secret);
  switch (scheme) {
    case 'stripe':
      return { 'stripe-signature': `t=${t},v1=${hmac(key, stripeSigned(t, body)).toString('hex')}` };
    case 'github':
      return {
        'x-hub-signature': `sha1=${createHmac('sha1', key).update(body).digest('hex')}`,
        'x-hub-signature-256': `sha256=${hmac(key, body).toString('hex')}`,
      };
    case 'slack':
      return {
        'x-slack-request-timestamp': t,
        'x-slack-signature': `v0=${hmac(key, slackSigned(t, body)).toString('hex')}`,
      };
    case 'standard-webhooks':
      return {
        'webhook-id': messageId,
        'webhook-timestamp': t,
        'webhook-signature': `v1,${hmac(key, standardSigned(messageId, t, body)).toString('base64')}`,
      };
    case 'hmac-sha256':
      return { [header]: hmac(key, body).toString('hex') };
  }
}
