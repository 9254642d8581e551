// Replaying a capture to a loopback service the test starts: the same method, headers and body bytes
// (a binary body included), the path below the webhook and the query appended; the service's answer
// and time come back; private targets are refused before anything is sent.
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { call, expectErrorShape, networkApi, newAccount, targets } from '../support/client.ts';
import { allowedAndForbiddenReceivers, expectReceivedAsSent, type Received } from '../support/receiver.ts';

describe.each(targets())('webhook replay ($name)', (target) => {
  const account = newAccount(target);
  const received: Received[] = [];
  const answer = (got: Received, res: http.ServerResponse) => {
    if (got.url.startsWith('/moved')) return res.writeHead(308, { location: 'http://127.0.0.2:9/elsewhere' }).end();
    setTimeout(() => res.writeHead(202, { 'content-type': 'text/plain', 'x-fixed': 'yes' }).end('handled'), 40);
  };
  /** The service, and the same on 127.0.0.2, which must never be reached. */
  const receivers = allowedAndForbiddenReceivers(received, answer);
  const network = networkApi(target, account);
  /** GET without a body, POST with one. */
  const api = (path: string, json?: unknown) => network(json === undefined ? 'GET' : 'POST', path, json);

  it('sends a capture again byte for byte and answers what the service said', async () => {
    const created = (await api('my-webhook-create', {})).body;
    const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f, ...Buffer.from('tail')]);
    const sent = await fetch(`${created.webhook_url}/events/stripe?attempt=1&tag=a&tag=b`, {
      method: 'PATCH',
      body: bytes,
      headers: { 'content-type': 'application/octet-stream', 'stripe-signature': 't=1,v1=abc', 'x-custom': 'kept' },
    });
    expect(sent.status).toBe(200);
    const [capture] = (await api(`my-webhook-requests?webhook_id=${created.webhook_id}`)).body.data.requests;
    expect(capture.body_encoding).toBe('base64');

    const replayed = await api('my-webhook-replay', {
      webhook_id: created.webhook_id,
      request_id: capture.id,
      target_url: `${receivers.allowed}/hooks/`,
    });
    expect(replayed.status, JSON.stringify(replayed.body)).toBe(200);
    expect(replayed.body).toMatchObject({
      success: true,
      request_id: capture.id,
      target_url: `${receivers.allowed}/hooks/events/stripe?attempt=1&tag=a&tag=b`,
      response: { status: 202, body: 'handled', truncated: false },
      sent: { method: 'PATCH', body_size: bytes.length },
    });
    expect(replayed.body.response.headers['x-fixed']).toBe('yes');
    expect(replayed.body.duration_ms).toBeGreaterThanOrEqual(40);
    const got = received.at(-1)!;
    expectReceivedAsSent(got, {
      method: 'PATCH',
      url: '/hooks/events/stripe?attempt=1&tag=a&tag=b',
      body: bytes,
      headers: {
        'content-type': 'application/octet-stream',
        'stripe-signature': 't=1,v1=abc',
        'x-custom': 'kept',
        'content-length': String(bytes.length),
      },
    });
    expect(got.headers.host).toBe(new URL(receivers.allowed).host);

    // Refusals: a private target before anything is sent, an unknown capture, another user's webhook.
    const before = received.length;
    const refused = await api('my-webhook-replay', {
      webhook_id: created.webhook_id,
      request_id: capture.id,
      target_url: `${receivers.forbidden}/`,
    });
    expectErrorShape(refused, 400);
    expect(refused.body.message).toMatch(/target_url/);
    expect(received.length).toBe(before);
    expectErrorShape(
      await api('my-webhook-replay', {
        webhook_id: created.webhook_id,
        request_id: capture.id + 1000,
        target_url: receivers.allowed,
      }),
      404,
    );
    expectErrorShape(
      await api('my-webhook-replay', {
        webhook_id: created.webhook_id,
        request_id: 'x',
        target_url: receivers.allowed,
      }),
      400,
    );
    const stranger = await newAccount(target);
    expectErrorShape(
      await call(target, 'POST', '/api/v1/network/my-webhook-replay', {
        key: stranger.key,
        json: { webhook_id: created.webhook_id, request_id: capture.id, target_url: receivers.allowed },
      }),
      404,
    );
    expect(received.length).toBe(before);

    // A redirect is the answer, not followed (its target is not even checked: nothing is sent there).
    const moved = await api('my-webhook-replay', {
      webhook_id: created.webhook_id,
      request_id: capture.id,
      target_url: `${receivers.allowed}/moved`,
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.response).toMatchObject({ status: 308, headers: { location: 'http://127.0.0.2:9/elsewhere' } });
    expect(received.length).toBe(before + 1);
  });
});
