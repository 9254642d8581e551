import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { call, expectErrorShape, newAccount, targets } from '../support/client.ts';

describe.each(targets())('webhooks ($name)', (target) => {
  it('goes through the whole lifecycle: create, capture, list, read, delete', async () => {
    const { key } = await newAccount(target);
    const created = await call(target, 'POST', '/api/v1/network/my-webhook-create', { key });
    expect(created.status).toBe(201);
    const { webhook_id, webhook_url, created_at } = created.body;
    expect(created.body.success).toBe(true);
    expect(webhook_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(webhook_url).toBe(`${target.baseUrl}/webhook/${webhook_id}`);
    expect(new Date(created_at).toISOString()).toBe(created_at);

    const sent = await fetch(`${webhook_url}?order=42`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Signature': 'abc' },
      body: '{"event":"paid"}',
    });
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({ success: true, webhook_id });

    const list = await call(target, 'GET', '/api/v1/network/my-webhooks', { key });
    expect(list.status).toBe(200);
    expect(list.body.data.total).toBe(1);
    expect(list.body.data.webhooks[0]).toMatchObject({ webhook_id, webhook_url, request_count: 1, created_at });
    expect(Number.isInteger(list.body.data.webhooks[0].id)).toBe(true);

    const requests = await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${webhook_id}`, { key });
    expect(requests.status).toBe(200);
    expect(requests.body.webhook_id).toBe(webhook_id);
    expect(requests.body.data.total).toBe(1);
    const [captured] = requests.body.data.requests;
    expect(captured).toMatchObject({
      method: 'POST',
      body: '{"event":"paid"}',
      query_params: JSON.stringify({ order: '42' }),
      ip_address: '127.0.0.1',
      user_agent: 'node',
    });
    expect(captured.headers['x-signature']).toBe('abc');
    expect(captured.headers['content-type']).toBe('application/json');

    const deleted = await call(target, 'POST', '/api/v1/network/my-webhook-delete', { key, json: { webhook_id } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ success: true, webhook_id });

    expect((await call(target, 'GET', '/api/v1/network/my-webhooks', { key })).body.data.total).toBe(0);
    expectErrorShape(
      await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${webhook_id}`, { key }),
      404,
    );
    expect((await fetch(webhook_url, { method: 'POST', body: 'late' })).status).toBe(404);
    expectErrorShape(
      await call(target, 'POST', '/api/v1/network/my-webhook-delete', { key, json: { webhook_id } }),
      404,
    );
  });

  it('lists newest webhooks and newest requests first', async () => {
    const { key } = await newAccount(target);
    const a = (await call(target, 'POST', '/api/v1/network/my-webhook-create', { key })).body;
    const b = (await call(target, 'POST', '/api/v1/network/my-webhook-create', { key })).body;
    const list = await call(target, 'GET', '/api/v1/network/my-webhooks', { key });
    expect(list.body.data.webhooks.map((w: { webhook_id: string }) => w.webhook_id)).toEqual([
      b.webhook_id,
      a.webhook_id,
    ]);
    for (const n of [1, 2, 3]) await fetch(b.webhook_url, { method: 'POST', body: `n=${n}` });
    const requests = await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${b.webhook_id}`, {
      key,
    });
    expect(requests.body.data.requests.map((r: { body: string }) => r.body)).toEqual(['n=3', 'n=2', 'n=1']);
  });

  it("isolates owners: another user's key gets 404 on every operation", async () => {
    const owner = await newAccount(target);
    const other = await newAccount(target);
    const { webhook_id, webhook_url } = (
      await call(target, 'POST', '/api/v1/network/my-webhook-create', { key: owner.key })
    ).body;
    await fetch(webhook_url, { method: 'POST', body: 'secret' });

    const read = await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${webhook_id}`, {
      key: other.key,
    });
    expectErrorShape(read, 404);
    expect(read.text).not.toContain('secret');
    expectErrorShape(
      await call(target, 'POST', '/api/v1/network/my-webhook-delete', { key: other.key, json: { webhook_id } }),
      404,
    );
    expect((await call(target, 'GET', '/api/v1/network/my-webhooks', { key: other.key })).body.data.total).toBe(0);

    // A foreign id and an unknown id are indistinguishable.
    const unknown = await call(target, 'GET', '/api/v1/network/my-webhook-requests?webhook_id=AAAAAAAAAAAAAAAAAAAAAA', {
      key: other.key,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message.replace('AAAAAAAAAAAAAAAAAAAAAA', webhook_id)).toBe(read.body.message);

    // The owner still has everything.
    expect(
      (await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${webhook_id}`, { key: owner.key }))
        .body.data.total,
    ).toBe(1);
  });

  it('answers 400 naming the field for missing or malformed input', async () => {
    const { key } = await newAccount(target);
    const missingQuery = await call(target, 'GET', '/api/v1/network/my-webhook-requests', { key });
    expectErrorShape(missingQuery, 400);
    expect(missingQuery.body.message).toMatch(/webhook_id/);

    const missingBody = await call(target, 'POST', '/api/v1/network/my-webhook-delete', { key, json: {} });
    expectErrorShape(missingBody, 400);
    expect(missingBody.body.message).toMatch(/webhook_id is required/);

    const wrongType = await call(target, 'POST', '/api/v1/network/my-webhook-delete', {
      key,
      json: { webhook_id: 42 },
    });
    expectErrorShape(wrongType, 400);
    expect(wrongType.body.message).toMatch(/webhook_id/);

    const notObject = await call(target, 'POST', '/api/v1/network/my-webhook-delete', { key, json: ['x'] });
    expectErrorShape(notObject, 400);

    for (const bad of ['%00', 'a%20b', 'x'.repeat(65)]) {
      const malformed = await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${bad}`, { key });
      expectErrorShape(malformed, 400);
      expect(malformed.body.message).toMatch(/webhook_id: is not a webhook id/);
    }
    expectErrorShape(
      await call(target, 'POST', '/api/v1/network/my-webhook-delete', { key, json: { webhook_id: 'nul\u0000' } }),
      400,
    );
  });

  it('answers 400 for malformed JSON and 413 for a body over 1 MiB, in the error shape', async () => {
    const { key } = await newAccount(target);
    const malformed = await call(target, 'POST', '/api/v1/network/my-webhook-delete', {
      key,
      body: '{"webhook_id":',
      headers: { 'Content-Type': 'application/json' },
    });
    expectErrorShape(malformed, 400);
    expect(malformed.body.message).toMatch(/not valid JSON/);

    const huge = JSON.stringify({ webhook_id: 'x'.repeat(1024 * 1024) });
    expectErrorShape(
      await call(target, 'POST', '/api/v1/network/my-webhook-delete', {
        key,
        body: huge,
        headers: { 'Content-Type': 'application/json' },
      }),
      413,
    );
  });

  it('answers 404 for unknown routes and 405 for a wrong method, in the error shape', async () => {
    const { key } = await newAccount(target);
    expectErrorShape(await call(target, 'GET', '/api/v1/network/nothing-here', { key }), 404);
    expectErrorShape(await call(target, 'GET', '/not-an-api', {}), 404);
    const wrongMethod = await call(target, 'GET', '/api/v1/network/my-webhook-create', { key });
    expectErrorShape(wrongMethod, 405);
    expect(wrongMethod.headers.get('allow')).toContain('POST');
  });

  it('answers 405 with Allow, not 501, for methods no route knows (TRACE, QUERY)', async () => {
    const { key } = await newAccount(target);
    for (const method of ['TRACE', 'QUERY']) {
      const reply = await new Promise<{ status: number; allow: string | undefined; body: any }>((resolve, reject) => {
        const req = http.request(
          `${target.baseUrl}/api/v1/network/my-webhooks`,
          { method, headers: { 'X-API-Key': key } },
          (res) => {
            let text = '';
            res
              .setEncoding('utf8')
              .on('data', (d) => (text += d))
              .on('end', () => resolve({ status: res.statusCode!, allow: res.headers.allow, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject).end();
      });
      expect(reply.status, method).toBe(405);
      expect(reply.allow, method).toContain('GET');
      expect(reply.body).toEqual({
        success: false,
        error: 'Method Not Allowed',
        code: 405,
        error_code: 'method_not_allowed',
        message: `${method} is not allowed on /api/v1/network/my-webhooks`,
      });
    }
    // On a path no route has, any method is a 404.
    const nowhere = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${target.baseUrl}/api/v1/network/nothing-here`,
        { method: 'TRACE', headers: { 'X-API-Key': key } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject).end();
    });
    expect(nowhere).toBe(404);
  });
});
