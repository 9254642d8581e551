// The one way to fetch a user-chosen URL (header analysis, page discovery, audits, RDAP, OAuth client metadata):
// every hop goes through the SSRF guard (target-guard.ts).
// - The first URL and every redirect target are checked before connecting; names are checked by
//   the socket's lookup hook, so the socket connects to the address that was checked.
// - Redirects are followed by hand, at most `maxRedirects`; credentials do not follow a redirect to
//   another origin.
// - Time (`timeoutMs` for the whole exchange) and response size (`maxBytes`) are bounded.
// Each hop opens its own connection (no pooling), so the timings of the last hop are its own
// (measure.ts); unless `keepAlive`: then a fetcher keeps its connections open for its next requests
// (webhook deliveries, many to the same receivers). A pooled connection was checked when it was made.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import { AppError, UpstreamError } from '../errors.ts';
import { reachFailure } from './reach-failure.ts';
import { createAddressPolicy } from './address-policy.ts';
import { bareHost } from './bare-host.ts';
import { headerObject } from './header-object.ts';
import { headerBytes, msSince, tlsInfo, watchPhases, type Timings, type TlsInfo } from './measure.ts';
import { checkUrl, guardedLookup, type Resolve } from './target-guard.ts';

export interface GuardedFetchOptions {
  /** CIDRs exempted from the guard (NETWORK_ALLOW). */
  allow?: readonly string[];
  maxRedirects?: number;
  /** false: a 3xx is the answer, not followed (a replay shows what the target said). */
  followRedirects?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** Past maxBytes: 'error' (502, the default) or 'truncate' (keep the first maxBytes, set `truncated`). */
  onOversize?: 'error' | 'truncate';
  /** Report an untrusted certificate (in `tls`) instead of refusing the connection. */
  allowInvalidCertificates?: boolean;
  /** Certificates of authorities trusted besides the system's. */
  ca?: string[];
  /** Resolves a name to all its addresses; dns.lookup by default. */
  resolve?: Resolve;
  /**
   * The request field the URL came from, when it is the caller's input: a host that does not exist is
   * then 400 naming it, as checkTarget answers (reach-failure.ts); otherwise 502.
   */
  field?: string;
  /**
   * Keep connections open between requests, in a pool of this fetcher's (timings then show no
   * connect phase for a reused one). An idle connection is closed after KEEP_ALIVE_IDLE_MS, before
   * common servers' own keep-alive timeouts (Node's 5 s), so a reuse rarely meets a closing socket.
   */
  keepAlive?: boolean;
}

/** How long a kept-alive connection may stay idle (keepAlive). */
export const KEEP_ALIVE_IDLE_MS = 4000;

export interface GuardedRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The first hop's request target (path and query) as given, in place of the URL parser's spelling of it. */
  target?: string;
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

export const GUARD_DEFAULTS = { maxRedirects: 5, timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024 } as const;

export type GuardedFetch = (url: string, init?: GuardedRequest) => Promise<GuardedResponse>;

export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch {
  const policy = createAddressPolicy(options.allow);
  const maxRedirects = options.maxRedirects ?? GUARD_DEFAULTS.maxRedirects;
  const timeoutMs = options.timeoutMs ?? GUARD_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? GUARD_DEFAULTS.maxBytes;
  const lookup = guardedLookup(policy, options.resolve);
  // Extra authorities are added to the system's, not put in their place.
  const ca = options.ca?.length ? [...tls.rootCertificates, ...options.ca] : undefined;
  const agents = options.keepAlive
    ? {
        'http:': new http.Agent({ keepAlive: true, timeout: KEEP_ALIVE_IDLE_MS }),
        'https:': new https.Agent({ keepAlive: true, timeout: KEEP_ALIVE_IDLE_MS }),
      }
    : null;

  const guardedFetch = async (url: string, init: GuardedRequest = {}): Promise<GuardedResponse> => {
    const signal = AbortSignal.timeout(timeoutMs);
    const chain: string[] = [];
    let current = checkUrl(url, policy);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    let headers = init.headers;
    for (;;) {
      chain.push(current.href);
      const field = chain.length === 1 ? options.field : undefined;
      const agent = agents?.[current.protocol as 'http:' | 'https:'] ?? false;
      const hop = await send(
        current,
        {
          method,
          headers,
          body,
          signal,
          lookup,
          agent,
          rejectUnauthorized: !options.allowInvalidCertificates,
          ca,
          field,
          target: chain.length === 1 ? init.target : undefined,
        },
        timeoutMs,
      );
      const { res } = hop;
      const location = res.headers.location;
      if (
        res.statusCode! >= 300 &&
        res.statusCode! < 400 &&
        typeof location === 'string' &&
        options.followRedirects !== false
      ) {
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
      const { body: payload, truncated } = await readLimited(
        res,
        maxBytes,
        options.onOversize === 'truncate',
        current.href,
        signal,
        timeoutMs,
      );
      hop.timings.total = msSince(hop.started);
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
  return (
    headers &&
    Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())))
  );
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
  /** false: a connection of its own. */
  agent: http.Agent | false;
  rejectUnauthorized: boolean;
  /** The system's authorities plus these (undefined: the system's alone). */
  ca?: string[];
  /** The request field that named this URL (the first hop's, when the caller's input is named). */
  field?: string;
  /** The request target to send instead of the URL's path and query. */
  target?: string;
}

function send(url: URL, o: SendOptions, timeoutMs: number): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const host = bareHost(url);
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: o.method,
      headers: o.headers,
      agent: o.agent,
      lookup: o.lookup,
      signal: o.signal,
      rejectUnauthorized: o.rejectUnauthorized,
      ...(o.target ? { path: o.target } : {}),
      ...(o.ca ? { ca: o.ca } : {}),
      ...(isIP(host) ? {} : { servername: host }),
    });
    const phases = watchPhases(request, started);
    request.once('response', (res) => {
      resolve({
        res,
        started,
        remoteAddress: res.socket.remoteAddress ?? '',
        remotePort: res.socket.remotePort ?? 0,
        tls: url.protocol === 'https:' ? tlsInfo(res.socket as TLSSocket) : null,
        timings: phases(),
      });
    });
    // on, not once: a second error must not crash the process.
    request.on('error', (err) =>
      reject(
        reachFailure(err, { url: url.href, host, field: o.field, timeoutMs: o.signal.aborted ? timeoutMs : undefined }),
      ),
    );
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

async function readLimited(
  res: IncomingMessage,
  maxBytes: number,
  truncate: boolean,
  url: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<{ body: Buffer; truncated: boolean }> {
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
    throw reachFailure(err, { url, host: '', timeoutMs: signal.aborted ? timeoutMs : undefined });
  }
  return { body: Buffer.concat(chunks, size), truncated: false };
}
