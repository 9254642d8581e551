// A loopback HTTP service a suite starts, that records every request it receives (method, URL,
// headers, body bytes, time) and answers as the suite says.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Epoch ms (fractional) when its head arrived. */
  at: number;
}

export interface Receiver {
  url: string;
  close(): Promise<void>;
}

/** Starts a receiver on `host` (a loopback address); each request is pushed to `received`, then `answer` replies. */
export async function startReceiver(
  host: string,
  received: Received[],
  answer: (got: Received, res: http.ServerResponse) => void,
): Promise<Receiver> {
  const server = http.createServer((req, res) => {
    // When the request arrived (its head), to the fraction of a millisecond.
    const at = performance.timeOrigin + performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks),
        at,
      };
      received.push(got);
      answer(got, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
