// What a fetch measures of one exchange besides its body: the time of each phase, the size of the
// response head, and the TLS session. Each hop has its own connection, so its timings are its own.
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

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

/**
 * Watches the socket of `request`, made at `started` (performance.now()); the function it returns,
 * called when the response starts, gives the phases up to the first byte (`total` is 0 until the
 * caller has read the body: see `msSince`).
 */
export function watchPhases(request: ClientRequest, started: number): () => Timings {
  const at = { lookup: 0, connect: 0, secure: 0 };
  request.once('socket', (socket) => {
    // A kept-alive socket reused for this request has made its connection already: nothing to watch
    // (and listeners added to it for events that never come again would pile up, request after request).
    if (request.reusedSocket) return;
    socket.once('lookup', () => (at.lookup = performance.now()));
    socket.once('connect', () => (at.connect = performance.now()));
    socket.once('secureConnect', () => (at.secure = performance.now()));
  });
  return () => {
    const now = performance.now();
    const dnsEnd = at.lookup || started;
    const connectEnd = at.connect || dnsEnd;
    return {
      dns: round(dnsEnd - started),
      connect: round(connectEnd - dnsEnd),
      ssl: at.secure ? round(at.secure - connectEnd) : 0,
      ttfb: round(now - (at.secure || connectEnd)),
      total: 0,
    };
  };
}

/** Milliseconds from `started` (performance.now()) until now, to 0.01 ms. */
export function msSince(started: number): number {
  return round(performance.now() - started);
}

/** Bytes of the status line and headers, as received. */
export function headerBytes(res: IncomingMessage): number {
  let bytes = `HTTP/${res.httpVersion} ${res.statusCode} ${res.statusMessage ?? ''}\r\n`.length + 2;
  for (let i = 0; i < res.rawHeaders.length; i += 2)
    bytes += Buffer.byteLength(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`);
  return bytes;
}

export function tlsInfo(socket: TLSSocket): TlsInfo {
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
        ? {
            subject: name(cert.subject as never),
            issuer: name(cert.issuer as never),
            valid_from: cert.valid_from,
            valid_to: cert.valid_to,
          }
        : null,
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
