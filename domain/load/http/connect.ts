// How a load connection (http1.ts, http2.ts) opens its socket: TCP, or TLS offering the protocols it
// speaks by ALPN (SNI for a name), to the URL's port, through the lookup it is given (the SSRF
// guard's); Nagle off; what it reads handed to its reader from one buffer.
import { performance } from 'node:perf_hooks';
import net, { type LookupFunction } from 'node:net';
import tls from 'node:tls';
import { bareHost } from '../../../lib/net/bare-host.ts';
import type { PhaseTimes } from '../phases.ts';

/**
 * What every socket of this thread reads into when its reader asks for it (`onRead`): the reader
 * handles each chunk before the next read, copying what it keeps, so one buffer serves them all.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

export interface ConnectionOptions {
  url: URL;
  lookup: LookupFunction;
  /** For https: check the certificate (true) or not. */
  rejectUnauthorized: boolean;
  /** Called with the socket each time one is opened (byte counting). */
  onSocket(socket: net.Socket): void;
}

/**
 * A new socket to the options' URL (its port, else 80 or 443), connecting, each chunk it reads given
 * to `onRead` (valid during the call only). Over TLS it offers `alpn`
 * (HTTP/1.1 alone by default; HTTP/2 offers h2 and http/1.1, so that a server without h2 still
 * completes the handshake and says so, rather than failing it with an alert).
 */
export function openSocket(
  { url, lookup, rejectUnauthorized }: ConnectionOptions,
  onRead: (chunk: Buffer) => void,
  alpn: string[] = ['http/1.1'],
): net.Socket {
  // Read into one buffer rather than as a stream's 'data' chunks: a new buffer and a stream's push for
  // every read were a tenth of a request's CPU over TLS with one stream a connection.
  const onread = {
    buffer: READ_BUFFER,
    callback: (n: number) => {
      onRead(READ_BUFFER.subarray(0, n));
      return true;
    },
  };
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const host = bareHost(url);
  const socket =
    url.protocol === 'https:'
      ? tls.connect({
          host,
          port,
          lookup,
          servername: net.isIP(host) ? undefined : host,
          rejectUnauthorized,
          ALPNProtocols: alpn,
          onread,
          // (@types/node omits tls.connect's onread, which Node has had since 14.18.)
        } as tls.ConnectionOptions)
      : net.connect({ host, port, lookup, onread });
  socket.setNoDelay(true);
  return socket;
}

/**
 * performance.now() of a connection's opening steps (0: not happened), for the phases of the requests that waited for
 * it.
 */
export class OpeningTimes {
  openedAt = 0;
  lookedUpAt = 0;
  connectedAt = 0;
  securedAt = 0;

  /** Times `socket`'s lookup, connect and TLS handshake, while `current()` says it is still the one in use. */
  watch(socket: net.Socket, secure: boolean, current: () => boolean) {
    this.openedAt = performance.now();
    this.lookedUpAt = this.connectedAt = this.securedAt = 0;
    socket.once('lookup', () => {
      if (current()) this.lookedUpAt = performance.now();
    });
    socket.once('connect', () => {
      if (current()) this.connectedAt = performance.now();
    });
    if (secure)
      socket.once('secureConnect', () => {
        if (current()) this.securedAt = performance.now();
      });
  }

  /** The DNS, connect and TLS phases (µs) of a request that waited for this opening: `opened`, else zeros. */
  phasesInto(p: PhaseTimes, opened: boolean) {
    if (!opened) {
      p.dns = p.connect = p.tls = 0;
      return;
    }
    const looked = this.lookedUpAt || this.openedAt;
    const connected = this.connectedAt || looked;
    p.dns = (looked - this.openedAt) * 1000;
    p.connect = (connected - looked) * 1000;
    p.tls = this.securedAt ? (this.securedAt - connected) * 1000 : 0;
  }
}
