// How a load connection (http1.ts) opens its socket: TCP, or TLS offering only http/1.1 (SNI for a
// name), to the URL's port, through the lookup it is given (the SSRF guard's); Nagle off.
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

/** A new socket to the options' URL (its port, else 80 or 443), connecting. */
export function openSocket({ url, lookup, rejectUnauthorized }: ConnectionOptions): net.Socket {
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
          ALPNProtocols: ['http/1.1'],
        })
      : net.connect({ host, port, lookup });
  socket.setNoDelay(true);
  return socket;
}
