// Which HTTP version a TLS server prefers: a handshake offering h2 and http/1.1 (ALPN), nothing sent.
// Used beside the HTTP/1.1 request of the header check, to the address that request was allowed to
// reach, so that "does this site speak HTTP/2" has the answer a browser would get.
import { isIP } from 'node:net';
import tls from 'node:tls';

/** 'h2', 'http/1.1', or null when the server chose none or the handshake failed within timeoutMs. */
export function negotiatedProtocol(
  address: string,
  port: number,
  hostname: string,
  timeoutMs = 3000,
): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: address,
      port,
      servername: isIP(hostname) ? undefined : hostname,
      ALPNProtocols: ['h2', 'http/1.1'],
      // Certificate problems are reported by the request itself; here only the protocol matters.
      rejectUnauthorized: false,
    });
    const done = (protocol: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(protocol);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.once('secureConnect', () => done(socket.alpnProtocol || null));
    socket.once('error', () => done(null));
  });
}
