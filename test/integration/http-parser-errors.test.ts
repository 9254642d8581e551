// What Node's HTTP parser refuses before any route sees it still gets the error shape: an over-long
// request line (a 20,000-character query) is 431 naming what to do, a request that is not HTTP 400.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { newAccount, targets } from '../support/client.ts';

describe.each(targets())('requests the HTTP parser refuses ($name)', (target) => {
  it('answers a request line and headers over 16 KB with 431 in the error shape', async () => {
    // Answered before any route (so no operation of the OpenAPI document lists it): fetched as it is.
    const { key } = await newAccount(target);
    const res = await fetch(
      `${target.baseUrl}/api/v1/network/dns-lookup?domain=example.com&pad=${'x'.repeat(20_000)}`,
      { headers: { 'X-API-Key': key } },
    );
    const body = await res.json();
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toMatchObject({
      success: false,
      code: 431,
      error: 'Request Header Fields Too Large',
      error_code: 'headers_too_large',
    });
    expect(body.message).toMatch(/larger than 16 KB: send a shorter URL/);
  });

  it('answers bytes that are not HTTP with 400 in the error shape', async () => {
    const { hostname, port } = new URL(target.baseUrl);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => socket.write('HELLO THERE\r\n\r\n'));
      let got = '';
      socket.setEncoding('utf8').on('data', (d: string) => (got += d));
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
    });
    const [head, body] = raw.split('\r\n\r\n') as [string, string];
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body)).toEqual({
      success: false,
      error: 'Bad Request',
      code: 400,
      error_code: 'invalid_input',
      message: 'The request is not valid HTTP',
    });
  });
});
