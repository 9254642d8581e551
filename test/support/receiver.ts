// A loopback HTTP service a suite starts, that records every request it receives (method, URL,
// headers, body bytes, time) and answers as the suite says.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';

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

/** What a receiver got is the request as sent: its method, URL (path and query), body bytes, and `headers`. */
export function expectReceivedAsSent(
  got: Received,
  sent: { method: string; url: string; body: Buffer; headers: Record<string, string> },
): void {
  expect(got.method).toBe(sent.method);
  expect(got.url).toBe(sent.url);
  expect(got.body.equals(sent.body)).toBe(true);
  expect(got.headers).toMatchObject(sent.headers);
}

/**
 * For a describe block: a receiver on 127.0.0.1, which the service may reach (NETWORK_ALLOW is 127.0.0.1/32
 * in the suites), and the same on 127.0.0.2, which it may not (only a client on the test's machine, the CLI,
 * reaches it). Both push to `received` and reply with `answer`; started before the block's tests, closed after
 * them. What it returns gives their URLs to the tests.
 */
export function allowedAndForbiddenReceivers(
  received: Received[],
  answer: (got: Received, res: http.ServerResponse) => void,
): { readonly allowed: string; readonly forbidden: string } {
  let allowed: Receiver | undefined;
  let forbidden: Receiver | undefined;
  beforeAll(async () => {
    allowed = await startReceiver('127.0.0.1', received, answer);
    forbidden = await startReceiver('127.0.0.2', received, answer);
  });
  afterAll(async () => {
    await Promise.all([allowed?.close(), forbidden?.close()]);
  });
  const started = (r: Receiver | undefined) => {
    if (!r) throw new Error('A receiver is read before its beforeAll started it');
    return r.url;
  };
  return {
    get allowed() {
      return started(allowed);
    },
    get forbidden() {
      return started(forbidden);
    },
  };
}
