// The whole-request deadline (REQUEST_TIMEOUT_MS), per request: a body that trickles in past it is
// cut off with 408; a request that arrived, or was answered without its body being read, is left alone.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestDeadline } from '../../../api/request-deadline.ts';

describe('requestDeadline', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer({ requestTimeout: 0 }, (req, res) => {
      requestDeadline(req, res, 500);
      if (req.url === '/answer-at-once') return res.end('answered');
      if (req.url === '/wait') return setTimeout(() => res.end('late but whole'), 800);
      req.resume().on('end', () => res.end('read it all'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** Sends the head, then the body a byte every `dripMs`; the status line it got (or 'closed') and when. */
  const send = (path: string, body: string, dripMs: number) =>
    new Promise<{ status: string; ms: number }>((resolve) => {
      const began = Date.now();
      const socket = net.connect(port, '127.0.0.1');
      let got = '';
      socket.on('error', () => {});
      socket.on('data', (d) => (got += d));
      socket.on('close', () => resolve({ status: got.split('\r\n')[0] || 'closed', ms: Date.now() - began }));
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`);
      let i = 0;
      const drip = setInterval(() => {
        if (i < body.length && socket.writable) socket.write(body[i++]!);
        else clearInterval(drip);
      }, dripMs);
      socket.on('close', () => clearInterval(drip));
    });

  it('answers 408 and closes when the body is still arriving at the deadline', async () => {
    const { status, ms } = await send('/read', 'x'.repeat(40), 100);
    expect(status).toBe('HTTP/1.1 408 Request Timeout');
    expect(ms).toBeGreaterThanOrEqual(450);
    expect(ms).toBeLessThan(3000);
  });

  it('leaves alone a request whose body arrived, even if its answer takes longer', async () => {
    expect((await send('/wait', 'abc', 1)).status).toBe('HTTP/1.1 200 OK');
    expect((await send('/read', 'abc', 1)).status).toBe('HTTP/1.1 200 OK');
  });

  it('leaves alone a request answered before its body was read', async () => {
    expect((await send('/answer-at-once', 'x'.repeat(20), 100)).status).toBe('HTTP/1.1 200 OK');
  });
});
