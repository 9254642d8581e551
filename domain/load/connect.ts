// How a load connection (http1.ts, http2.ts) opens its socket: TCP, or TLS offering the protocols it
// speaks by ALPN (SNI for a name), to the URL's port, through the lookup it is given (the SSRF
// guard's); Nagle off.
import net, { type LookupFunction } from 'node:net';
import tls from 'node:tls';
import { bareHost } from '../../lib/net/bare-host.ts';

export interface ConnectionOptions {
  url: URL;
  lookup: LookupFunction;
  /** For https: check the certificate (true) or not. */
  rejectUnauthorized: boolean;
  /** Called with the socket each time one is opened (byte counting). */
  onSocket(socket: net.Socket): void;
}

/**
 * A new socket to the options' URL (its port, else 80 or 443), connecting. Over TLS it offers `alpn`
 * (HTTP/1.1 alone by default; HTTP/2 offers h2 and http/1.1, so that a server without h2 still
 * completes the handshake and says so, rather than failing it with an alert).
 */
export function openSocket(
  { url, lookup, rejectUnauthorized }: ConnectionOptions,
  alpn: string[] = ['http/1.1'],
): net.Socket {
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
        })
      : net.connect({ host, port, lookup });
  socket.setNoDelay(true);
  return socket;
}
