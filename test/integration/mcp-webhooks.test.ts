// The webhook operations through MCP, against the running service: set up a webhook (answer,
// forwarding, retention, signatures), search its captures with filters, watch a delivery, replay a
// capture to a loopback receiver; bad settings are tool errors naming the field.
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targets } from '../support/client.ts';
import { connectedClient, newUser } from '../support/mcp.ts';
import { startReceiver, type Received, type Receiver } from '../support/receiver.ts';

describe.each(targets())('MCP webhook tools ($name)', (target) => {
  const received: Received[] = [];
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver('127.0.0.1', received, (_got, res: http.ServerResponse) => res.writeHead(204).end());
  });
  afterAll(() => receiver.close());

  it('sets a webhook up, searches its captures, shows their deliveries and replays one', async () => {
    const { email } = await newUser(target);
    const { client } = await connectedClient(target, email);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      return {
        error: result.isError ? (result.content as Array<{ text: string }>)[0]!.text : null,
        out: result.structuredContent as any,
      };
    };
    const created = await call('webhook_create', {
      response: { status: 202, body: 'queued' },
      forward_url: `${receiver.url}/fwd`,
      retention: { max_requests: 50 },
    });
    expect(created.error).toBeNull();
    expect(created.out).toMatchObject({
      response: { status: 202, body: 'queued', headers: {}, delay_ms: 0 },
      forward_url: `${receiver.url}/fwd`,
      retention: { max_requests: 50, max_age_days: 30 },
      signature: null,
    });
    const id = created.out.webhook_id;

    const posted = await fetch(created.out.webhook_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-event': 'order.paid' },
      body: '{"order":42}',
    });
    expect([posted.status, await posted.text()]).toEqual([202, 'queued']);
    await fetch(`${created.out.webhook_url}?ping=1`);

    const byMethod = await call('webhook_requests', { webhook_id: id, method: 'post' });
    expect(byMethod.out.requests.map((r: any) => r.body)).toEqual(['{"order":42}']);
    expect(
      (await call('webhook_requests', { webhook_id: id, header: 'x-event:order.paid', q: 'ORDER' })).out.total,
    ).toBe(1);
    expect((await call('webhook_requests', { webhook_id: id, q: 'nothing like it' })).out.total).toBe(0);
    const firstPage = await call('webhook_requests', { webhook_id: id, limit: 1 });
    expect(firstPage.out.requests[0].method).toBe('GET');
    expect(
      (await call('webhook_requests', { webhook_id: id, limit: 1, cursor: firstPage.out.next_cursor })).out.requests[0]
        .method,
    ).toBe('POST');

    const end = Date.now() + 30_000;
    let deliveries: string[] = [];
    while (Date.now() < end) {
      deliveries = (await call('webhook_requests', { webhook_id: id })).out.requests.map(
        (r: any) => r.delivery?.status,
      );
      if (deliveries.every((s) => s === 'success')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(deliveries).toEqual(['success', 'success']);
    expect(
      received
        .filter((r) => r.url.startsWith('/fwd'))
        .map((r) => r.url)
        .sort(),
    ).toEqual(['/fwd', '/fwd?ping=1']);

    const signed = await call('webhook_update', {
      webhook_id: id,
      signature: { scheme: 'github', secret: 'It’s a Secret to Everybody' },
    });
    expect(signed.error).toBeNull();
    expect(signed.out.signature).toEqual({ scheme: 'github', header: '' });
    expect(
      (await call('webhook_requests', { webhook_id: id, method: 'POST' })).out.requests[0].signature,
    ).toMatchObject({ status: 'missing' });

    const replayed = await call('webhook_replay', {
      webhook_id: id,
      request_id: byMethod.out.requests[0].id,
      target_url: `${receiver.url}/again`,
    });
    expect(replayed.error).toBeNull();
    expect(replayed.out).toMatchObject({ response: { status: 204 }, target_url: `${receiver.url}/again` });
    expect(received.at(-1)!.body.toString()).toBe('{"order":42}');

    const before = received.length;
    expect((await call('webhook_update', { webhook_id: id, forward_url: 'http://127.0.0.2:9/' })).error).toMatch(
      /forward_url/,
    );
    expect((await call('webhook_update', { webhook_id: id, retention: { max_requests: 20_000 } })).error).toMatch(
      /retention\.max_requests/,
    );
    expect((await call('webhook_update', { webhook_id: id })).error).toMatch(/give at least one of/);
    expect(
      (
        await call('webhook_replay', {
          webhook_id: id,
          request_id: byMethod.out.requests[0].id,
          target_url: 'http://127.0.0.2:9/',
        })
      ).error,
    ).toMatch(/target_url/);
    expect(received.length).toBe(before);
    await client.close();
  });
});
