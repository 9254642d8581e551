import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connect.ts';
import { call, expectErrorShape, newAccount, targets, webhookCaptures } from '../support/client.ts';

const MiB = 1024 * 1024;

describe.each(targets())('webhook capture ($name)', (target) => {
  async function newWebhook(plan: 'free' | 'enterprise' = 'enterprise') {
    const account = await newAccount(target, plan);
    const created = await call(target, 'POST', '/api/v1/network/my-webhook-create', { key: account.key });
    return { key: account.key, id: created.body.webhook_id as string, url: created.body.webhook_url as string };
  }
  const captured = (key: string, id: string) => webhookCaptures(target, { key }, id);

  it('captures every HTTP method with its body, query and headers, without an API key', async () => {
    const hook = await newWebhook();
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
    for (const method of methods) {
      const withBody = !['GET', 'HEAD'].includes(method);
      const res = await fetch(`${hook.url}?method=${method}&tag=a&tag=b`, {
        method,
        headers: { 'X-Test-Method': method, 'Content-Type': 'text/plain', 'User-Agent': `agent-${method}` },
        body: withBody ? `body of ${method}` : undefined,
      });
      expect(res.status, method).toBe(200);
      if (method === 'HEAD') expect(await res.text()).toBe('');
      else expect(await res.json()).toMatchObject({ success: true, webhook_id: hook.id });
    }
    const rows = await captured(hook.key, hook.id);
    expect(rows.map((r) => r.method)).toEqual([...methods].reverse());
    for (const row of rows) {
      const withBody = !['GET', 'HEAD'].includes(row.method);
      expect(row.body).toBe(withBody ? `body of ${row.method}` : null);
      expect(JSON.parse(row.query_params)).toEqual({ method: row.method, tag: ['a', 'b'] });
      expect(row.headers['x-test-method']).toBe(row.method);
      expect(row.user_agent).toBe(`agent-${row.method}`);
      expect(row.ip_address).toBe('127.0.0.1');
      expect(row.body_encoding).toBe('utf8');
      expect(Date.now() - Date.parse(row.created_at)).toBeLessThan(120_000);
    }
  });

  it('answers CORS preflights so browsers can post to a capture URL', async () => {
    const hook = await newWebhook();
    const res = await fetch(hook.url, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toBe('content-type');
  });

  it('records null query_params when there is no query, and the path below the capture URL', async () => {
    const hook = await newWebhook();
    await fetch(`${hook.url}/stripe/events`, { method: 'POST', body: 'x' });
    const [row] = await captured(hook.key, hook.id);
    expect(row.query_params).toBeNull();
    expect(row.path).toBe(`/webhook/${hook.id}/stripe/events`);
  });

  it('keeps binary bodies byte for byte, as base64 with a flag', async () => {
    const hook = await newWebhook();
    const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x10, 0x80, 0x00, 0x41]);
    await fetch(hook.url, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: bytes });
    const [row] = await captured(hook.key, hook.id);
    expect(row.body_encoding).toBe('base64');
    expect(Buffer.from(row.body, 'base64').equals(bytes)).toBe(true);
    expect(row.body_size).toBe(bytes.length);
  });

  it('keeps repeated headers joined, as HTTP defines them', async () => {
    const hook = await newWebhook();
    const url = new URL(hook.url);
    await new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'X-Multi': ['one', 'two'] },
        },
        (res) => {
          res.resume().on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end('m');
    });
    const [row] = await captured(hook.key, hook.id);
    expect(row.headers['x-multi']).toBe('one, two');
  });

  it('accepts a body of exactly 1 MiB and refuses one byte more with 413, storing nothing', async () => {
    const hook = await newWebhook();
    const atLimit = await fetch(hook.url, { method: 'POST', body: 'a'.repeat(MiB) });
    expect(atLimit.status).toBe(200);
    const over = await fetch(hook.url, { method: 'POST', body: 'b'.repeat(MiB + 1) });
    expect(over.status).toBe(413);
    const body = await over.json();
    expect(body).toMatchObject({ success: false, code: 413 });

    // Without a Content-Length (chunked), the limit holds too.
    const chunked = await fetch(hook.url, {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 3; i++) controller.enqueue(new TextEncoder().encode('c'.repeat(MiB / 2)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);

    const rows = await captured(hook.key, hook.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].body_size).toBe(MiB);
  });

  it('refuses a declared 100 MB body at once, without reading it, and closes the connection', async () => {
    const hook = await newWebhook();
    const url = new URL(hook.url);
    const answer = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'Content-Length': String(100 * MiB) },
        },
        (res) => {
          resolve({ status: res.statusCode!, connection: res.headers.connection });
          res.resume();
          req.destroy();
        },
      );
      req.on('error', reject);
      req.write('only the first bytes of a body that never comes');
    });
    expect(answer).toEqual({ status: 413, connection: 'close' });
    expect(await captured(hook.key, hook.id)).toHaveLength(0);
  });

  it('answers 404 in the error shape for an unknown webhook and stores nothing', async () => {
    const res = await call(target, 'POST', '/webhook/AAAAAAAAAAAAAAAAAAAAAA', { body: 'x' });
    expectErrorShape(res, 404);
    expectErrorShape(await call(target, 'POST', '/webhook/', { body: 'x' }), 404);
  });

  it('is not rate limited by the owner plan: a free user webhook takes more than 10 requests a minute', async () => {
    const hook = await newWebhook('free');
    const statuses = await Promise.all(
      Array.from({ length: 25 }, (_, i) => fetch(hook.url, { method: 'POST', body: String(i) }).then((r) => r.status)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(await captured(hook.key, hook.id)).toHaveLength(25);
  });

  it('keeps the newest 500 requests per webhook and deletes the oldest from the database', async () => {
    const hook = await newWebhook();
    const total = 1100; // past 500 + 250 (the most a webhook holds between trims): without trims, too many stay
    for (let start = 0; start < total; start += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(hook.url, { method: 'POST', body: String(start + i) }).then((r) => r.arrayBuffer()),
        ),
      );
    }
    const rows = await captured(hook.key, hook.id);
    expect(rows).toHaveLength(500);
    // Batches arrive concurrently: everything kept is newer than everything dropped, and all but
    // the first batch of 50 is kept.
    const ids = rows.map((r) => r.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    const kept = new Set(rows.map((r) => Number(r.body)));
    for (let i = total - 450; i < total; i++) expect(kept.has(i), `recent request ${i} kept`).toBe(true);
    expect(
      (await call(target, 'GET', '/api/v1/network/my-webhooks', { key: hook.key })).body.data.webhooks[0].request_count,
    ).toBe(500);

    // The rows beyond the cap are gone from the database (trimming runs just after the answers, once
    // a webhook took half its kept count, 250 here, since its last trim: it may hold up to 250 more).
    const handle = await openDatabase({
      databaseUrl: target.env.DATABASE_URL,
      dataDir: target.env.DATA_DIR!,
      migrate: false,
      maxConnections: 1,
    });
    try {
      const count = async () =>
        Number(
          (
            await handle.db
              .selectFrom('captured_requests')
              .innerJoin('webhooks', 'webhooks.id', 'captured_requests.webhook_ref')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('webhooks.webhook_id', '=', hook.id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      let stored = await count();
      for (let i = 0; i < 50 && stored > 750; i++) {
        await new Promise((r) => setTimeout(r, 100));
        stored = await count();
      }
      expect(stored).toBeGreaterThanOrEqual(500);
      expect(stored).toBeLessThanOrEqual(750);
    } finally {
      await handle.close();
    }
  });
});
