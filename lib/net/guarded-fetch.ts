// The one way to reach a user-chosen URL (header analysis, load-test targets, page discovery, audits).
// - Names are resolved here and every answer is checked: one forbidden address refuses the request
//   (a name that answers both a public and a private address is a rebinding trick).
// - The socket connects to the address that was checked: the check is undici's DNS lookup hook.
// - IP literals, which skip the lookup, are checked before connecting.
// - Redirects are followed by hand, each hop checked again, at most `maxRedirects`.
// - Time (`timeoutMs` for the whole exchange) and response size (`maxBytes`) are bounded.
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import { AppError, InvalidInputError, UpstreamError } from '../errors.ts';
import { createAddressPolicy, type AddressPolicy } from './address-policy.ts';

export interface GuardedFetchOptions {
  /** CIDRs exempted from the guard (NETWORK_ALLOW). */
  allow?: readonly string[];
  maxRedirects?: number;
  timeoutMs?: number;
  maxBytes?: number;
  /** Resolves a name to all its addresses; dns.lookup by default. */
  resolve?: (hostname: string) => Promise<string[]>;
}

export interface GuardedRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface GuardedResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Every URL requested, the first one included. */
  chain: string[];
}

/** The URL points at an address the guard refuses (maps to 400: the caller chose it). */
export class ForbiddenAddressError extends InvalidInputError {
  override name = 'ForbiddenAddressError';
}

export const GUARD_DEFAULTS = { maxRedirects: 5, timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024 } as const;

export type GuardedFetch = (url: string, init?: GuardedRequest) => Promise<GuardedResponse>;

export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch & { close(): Promise<void> } {
  const policy = createAddressPolicy(options.allow);
  const resolve = options.resolve ?? (async (host: string) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address));
  const maxRedirects = options.maxRedirects ?? GUARD_DEFAULTS.maxRedirects;
  const timeoutMs = options.timeoutMs ?? GUARD_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? GUARD_DEFAULTS.maxBytes;
  const agent = new Agent({ connect: { lookup: guardedLookup(policy, resolve) } });

  const guardedFetch = async (url: string, init: GuardedRequest = {}): Promise<GuardedResponse> => {
    const signal = AbortSignal.timeout(timeoutMs);
    const chain: string[] = [];
    let current = checkUrl(url, policy);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    let headers = init.headers;
    for (;;) {
      chain.push(current.href);
      const res = await send(agent, current, { method, headers, body, signal }, timeoutMs);
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        res.body.resume();
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
      const payload = await readLimited(res.body, maxBytes, current.href, signal, timeoutMs);
      return {
        url: current.href,
        status: res.statusCode,
        headers: flattenHeaders(res.headers),
        body: payload,
        chain,
      };
    }
  };
  return Object.assign(guardedFetch, { close: () => agent.close() });
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

function checkUrl(raw: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInputError(`url: ${JSON.stringify(raw)} is not a valid URL`, 'url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInputError(`url: only http and https URLs are allowed (got ${url.protocol})`, 'url');
  if (url.username || url.password) throw new InvalidInputError('url: credentials in the URL are not allowed', 'url');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const why = policy.refusal(host);
    if (why) throw new ForbiddenAddressError(`url: target not allowed: ${why}`, 'url');
  }
  return url;
}

/** The lookup undici's sockets use: resolve, refuse if any answer is forbidden, connect to what was checked. */
function guardedLookup(policy: AddressPolicy, resolve: (host: string) => Promise<string[]>): LookupFunction {
  return ((hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
        for (const address of addresses) {
          const why = policy.refusal(address);
          if (why) return callback(new ForbiddenAddressError(`url: target not allowed: ${hostname} resolves to ${address}: ${why}`, 'url'));
        }
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (opts?.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (err) => callback(err),
    );
  }) as LookupFunction;
}

async function send(agent: Agent, url: URL, o: { method: string; headers?: Record<string, string>; body?: string | Buffer; signal: AbortSignal }, timeoutMs: number): Promise<Dispatcher.ResponseData> {
  try {
    return await request(url, { dispatcher: agent, method: o.method as Dispatcher.HttpMethod, headers: o.headers, body: o.body, signal: o.signal });
  } catch (err) {
    throw upstreamFailure(err, url.href, timeoutMs);
  }
}

async function readLimited(body: Dispatcher.ResponseData['body'], maxBytes: number, url: string, signal: AbortSignal, timeoutMs: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > maxBytes) {
        body.destroy();
        throw new UpstreamError(`Response from ${url} is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw upstreamFailure(signal.aborted ? signal.reason : err, url, timeoutMs);
  }
  return Buffer.concat(chunks, size);
}

function upstreamFailure(err: unknown, url: string, timeoutMs: number): AppError {
  // The lookup hook's refusal reaches us wrapped by the connector.
  for (let e = err as { cause?: unknown } | undefined; e; e = e.cause as { cause?: unknown } | undefined) {
    if (e instanceof AppError) return e;
  }
  const e = err as { name?: string; code?: string; message?: string };
  if (e?.name === 'TimeoutError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT') {
    return new UpstreamError(`${url} did not answer within ${timeoutMs} ms`, true);
  }
  return new UpstreamError(`${url} could not be reached: ${e?.code ?? e?.message ?? 'unknown error'}`);
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
