// The one way to reach a user-chosen URL (header analysis, load-test targets, page discovery, audits).
// - Names are resolved here and every answer is checked: one forbidden address refuses the request
//   (a name that answers both a public and a private address is a rebinding trick).
// - The socket connects to the address that was checked: the check is the socket's DNS lookup hook.
// - IP literals, which skip the lookup, are checked before connecting.
// - Redirects are followed by hand, each hop checked again, at most `maxRedirects`; credentials do
//   not follow a redirect to another origin.
// - Time (`timeoutMs` for the whole exchange) and response size (`maxBytes`) are bounded.
// Each hop opens its own connection (no pooling), so the timings of the last hop are its own.
import dns from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { AppError, InvalidInputError, UpstreamError } from '../errors.ts';
import { createAddressPolicy, type AddressPolicy } from './address-policy.ts';
import { headerObject } from './header-object.ts';

export interface GuardedFetchOptions {
  /** CIDRs exempted from the guard (NETWORK_ALLOW). */
  allow?: readonly string[];
  maxRedirects?: number;
  timeoutMs?: number;
  maxBytes?: number;
  /** Past maxBytes: 'error' (502, the default) or 'truncate' (keep the first maxBytes, set `truncated`). */
  onOversize?: 'error' | 'truncate';
  /** Report an untrusted certificate (in `tls`) instead of refusing the connection. */
  allowInvalidCertificates?: boolean;
  /** Resolves a name to all its addresses; dns.lookup by default. */
  resolve?: (hostname: string) => Promise<string[]>;
}

export interface GuardedRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** Milliseconds of each phase of the last hop; 0 for a phase that did not happen (dns for an IP, ssl for http). */
export interface Timings {
  dns: number;
  connect: number;
  ssl: number;
  ttfb: number;
  total: number;
}

export interface TlsInfo {
  authorized: boolean;
  authorizationError: string | null;
  protocol: string;
  certificate: { subject: string; issuer: string; valid_from: string; valid_to: string } | null;
}

export interface GuardedResponse {
  url: string;
  status: number;
  /** Lower-case names; repeated headers joined with ", " (Set-Cookie also in `setCookies`). */
  headers: Record<string, string>;
  setCookies: string[];
  httpVersion: number;
  body: Buffer;
  /** True when the body was cut at maxBytes (onOversize 'truncate'). */
  truncated: boolean;
  /** Every URL requested, the first one included. */
  chain: string[];
  remoteAddress: string;
  remotePort: number;
  /** Bytes of the status line and headers, as received. */
  headerBytes: number;
  timings: Timings;
  tls: TlsInfo | null;
}

/** The URL points at an address the guard refuses (maps to 400: the caller chose it). */
export class ForbiddenAddressError extends InvalidInputError {
  override name = 'ForbiddenAddressError';
}

export const GUARD_DEFAULTS = { maxRedirects: 5, timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024 } as const;

export type GuardedFetch = (url: string, init?: GuardedRequest) => Promise<GuardedResponse>;

export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch {
  const policy = createAddressPolicy(options.allow);
  const resolve = options.resolve ?? defaultResolve;
  const maxRedirects = options.maxRedirects ?? GUARD_DEFAULTS.maxRedirects;
  const timeoutMs = options.timeoutMs ?? GUARD_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? GUARD_DEFAULTS.maxBytes;
  const lookup = guardedLookup(policy, resolve);

  const guardedFetch = async (url: string, init: GuardedRequest = {}): Promise<GuardedResponse> => {
    const signal = AbortSignal.timeout(timeoutMs);
    const chain: string[] = [];
    let current = checkUrl(url, policy);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    let headers = init.headers;
    for (;;) {
      chain.push(current.href);
      const hop = await send(current, { method, headers, body, signal, lookup, rejectUnauthorized: !options.allowInvalidCertificates }, timeoutMs);
      const { res } = hop;
      const location = res.headers.location;
      if (res.statusCode! >= 300 && res.statusCode! < 400 && typeof location === 'string') {
        res.destroy();
        if (chain.length > maxRedirects) throw new UpstreamError(`More than ${maxRedirects} redirects from ${url}`);
        const next = checkUrl(resolveLocation(location, current), policy);
        // Credentials were meant for the origin they were given for, not for wherever it redirects.
        if (next.origin !== current.origin) headers = withoutCredentials(headers);
        current = next;
        // As browsers do: 303, and 301/302 after a POST, continue as GET without a body.
        if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const { body: payload, truncated } = await readLimited(res, maxBytes, options.onOversize === 'truncate', current.href, signal, timeoutMs);
      hop.timings.total = round(performance.now() - hop.started);
      return {
        url: current.href,
        status: res.statusCode!,
        headers: headerObject(res.rawHeaders),
        setCookies: res.headers['set-cookie'] ?? [],
        httpVersion: Number(res.httpVersion),
        body: payload,
        truncated,
        chain,
        remoteAddress: hop.remoteAddress,
        remotePort: hop.remotePort,
        headerBytes: headerBytes(res),
        timings: hop.timings,
        tls: hop.tls,
      };
    }
  };
  return guardedFetch;
}

function resolveLocation(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    throw new UpstreamError(`${base.href} redirected to an invalid URL ${JSON.stringify(location.slice(0, 200))}`);
  }
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

function withoutCredentials(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  return headers && Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())));
}

export function checkUrl(raw: string, policy: AddressPolicy, field = 'url'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInputError(`${field}: ${JSON.stringify(raw)} is not a valid URL`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInputError(`${field}: only http and https URLs are allowed (got ${url.protocol})`, field);
  if (url.username || url.password) throw new InvalidInputError(`${field}: credentials in the URL are not allowed`, field);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const why = policy.refusal(host);
    if (why) throw new ForbiddenAddressError(`${field}: target not allowed: ${why}`, field);
  }
  return url;
}

/**
 * Refuses a user-chosen URL before any work starts (400 naming `field`): a bad URL, a forbidden
 * literal address, or a name that resolves to one. Sockets opened later still go through
 * guardedLookup, since a name can answer differently the next time.
 */
export async function checkTarget(raw: string, options: { allow?: readonly string[]; field?: string; resolve?: (host: string) => Promise<string[]> } = {}): Promise<URL> {
  const field = options.field ?? 'url';
  const policy = createAddressPolicy(options.allow);
  const url = checkUrl(raw, policy, field);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return url;
  const resolve = options.resolve ?? defaultResolve;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new InvalidInputError(`${field}: ${host} does not resolve to an address`, field);
  }
  for (const address of addresses) {
    const why = policy.refusal(address);
    if (why) throw new ForbiddenAddressError(`${field}: target not allowed: ${host} resolves to ${address}: ${why}`, field);
  }
  return url;
}

const defaultResolve = async (host: string) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The lookup our sockets use: resolve, refuse if any answer is forbidden, connect to what was checked. */
export function guardedLookup(policy: AddressPolicy, resolve: (host: string) => Promise<string[]> = defaultResolve, field = 'url'): LookupFunction {
  return ((hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
        for (const address of addresses) {
          const why = policy.refusal(address);
          if (why) return callback(new ForbiddenAddressError(`${field}: target not allowed: ${hostname} resolves to ${address}: ${why}`, field));
        }
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (opts?.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (err) => callback(err),
    );
  }) as LookupFunction;
}

interface Hop {
  res: IncomingMessage;
  started: number;
  timings: Timings;
  remoteAddress: string;
  remotePort: number;
  tls: TlsInfo | null;
}

interface SendOptions {
  method: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal: AbortSignal;
  lookup: LookupFunction;
  rejectUnauthorized: boolean;
}

function send(url: URL, o: SendOptions, timeoutMs: number): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const at = { lookup: 0, connect: 0, secure: 0 };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: o.method,
      headers: o.headers,
      agent: false,
      lookup: o.lookup,
      signal: o.signal,
      rejectUnauthorized: o.rejectUnauthorized,
      ...(isIP(host) ? {} : { servername: host }),
    });
    request.once('socket', (socket) => {
      socket.once('lookup', () => (at.lookup = performance.now()));
      socket.once('connect', () => (at.connect = performance.now()));
      socket.once('secureConnect', () => (at.secure = performance.now()));
    });
    request.once('response', (res) => {
      const now = performance.now();
      const dnsEnd = at.lookup || started;
      const connectEnd = at.connect || dnsEnd;
      resolve({
        res,
        started,
        remoteAddress: res.socket.remoteAddress ?? '',
        remotePort: res.socket.remotePort ?? 0,
        tls: url.protocol === 'https:' ? tlsInfo(res.socket as TLSSocket) : null,
        timings: {
          dns: round(dnsEnd - started),
          connect: round(connectEnd - dnsEnd),
          ssl: at.secure ? round(at.secure - connectEnd) : 0,
          ttfb: round(now - (at.secure || connectEnd)),
          total: 0,
        },
      });
    });
    request.on('error', (err) => reject(upstreamFailure(err, url.href, timeoutMs, o.signal))); // on, not once: a second error must not crash the process
    // An unrequested 101 is an "upgrade" to Node, which then never emits 'response'.
    request.once('upgrade', (_res, socket) => {
      socket.destroy();
      reject(new UpstreamError(`${url.href} switched protocols (101) without being asked`));
    });
    // Whatever else ends the exchange without an answer must not leave the caller waiting.
    request.once('close', () => reject(new UpstreamError(`${url.href} closed the connection without an answer`)));
    request.end(o.body);
  });
}

async function readLimited(res: IncomingMessage, maxBytes: number, truncate: boolean, url: string, signal: AbortSignal, timeoutMs: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.destroy();
        if (!truncate) throw new UpstreamError(`Response from ${url} is larger than ${maxBytes} bytes`);
        chunks.push((chunk as Buffer).subarray(0, (chunk as Buffer).length - (size - maxBytes)));
        return { body: Buffer.concat(chunks, maxBytes), truncated: true };
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw upstreamFailure(err, url, timeoutMs, signal);
  }
  return { body: Buffer.concat(chunks, size), truncated: false };
}

const TLS_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|HOSTNAME/;

function upstreamFailure(err: unknown, url: string, timeoutMs: number, signal: AbortSignal): AppError {
  if (err instanceof AppError) return err; // the lookup hook's refusal
  if (signal.aborted) return new UpstreamError(`${url} did not answer within ${timeoutMs} ms`, true);
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (TLS_ERRORS.test(code)) return new UpstreamError(`${url}: TLS failed (${code}): ${(err as Error).message}`);
  return new UpstreamError(`${url} could not be reached: ${code || (err as Error).message}`);
}

function headerBytes(res: IncomingMessage): number {
  let bytes = `HTTP/${res.httpVersion} ${res.statusCode} ${res.statusMessage ?? ''}\r\n`.length + 2;
  for (let i = 0; i < res.rawHeaders.length; i += 2) bytes += Buffer.byteLength(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`);
  return bytes;
}

function tlsInfo(socket: TLSSocket): TlsInfo {
  const cert = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : null;
  const name = (n: Record<string, string | string[]> | undefined) => {
    if (!n) return '';
    const v = n.CN ?? n.O ?? '';
    return Array.isArray(v) ? v.join(', ') : v;
  };
  return {
    authorized: socket.authorized === true,
    authorizationError: socket.authorizationError ? String(socket.authorizationError) : null,
    protocol: socket.getProtocol?.() ?? '',
    certificate:
      cert && Object.keys(cert).length > 0
        ? { subject: name(cert.subject as never), issuer: name(cert.issuer as never), valid_from: cert.valid_from, valid_to: cert.valid_to }
        : null,
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
