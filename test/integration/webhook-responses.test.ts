// Custom responses of webhooks: the status, headers, body and delay the owner sets, at creation and
// by update (every API process answering the new one at once); the capture stored before the answer,
// so a sender that leaves during the delay loses nothing; bounds refused naming the field.
import { describe, expect, it } from 'vitest';
import { call, expectErrorShape, networkApi, newAccount, targets, webhookCaptures } from '../support/client.ts';

describe.each(targets())('webhook custom responses ($name)', (target) => {
  const account = newAccount(target);
  const api = networkApi(target, account);
  const captured = (webhookId: string) => webhookCaptures<{ path: string; method: string }>(target, account, webhookId);

  it('answers what the owner set, after its delay, and stores the capture first', async () => {
    const response = {
      status: 201,
      headers: { 'Content-Type': 'application/xml', 'X-Handled-By': 'netops' },
      body: '<ok/>',
      delay_ms: 300,
    };
    const created = await api('POST', 'my-webhook-create', { response });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.response).toEqual(response);
    const url = created.body.webhook_url as string;
    const began = performance.now();
    const res = await fetch(`${url}/orders`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    const waited = performance.now() - began;
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/xml');
    expect(res.headers.get('x-handled-by')).toBe('netops');
    expect(await res.text()).toBe('<ok/>');
    // The capture URL shares the service's origin: an owner's answer is always sandboxed and never sniffed.
    expect(res.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(waited).toBeGreaterThanOrEqual(300);
    expect(
      (await api('GET', 'my-webhooks')).body.data.webhooks.find((w: any) => w.webhook_id === created.body.webhook_id)
        .response,
    ).toEqual(response);

    // A sender that gives up during the delay: its capture is already stored.
    const aborted = new AbortController();
    const pending = fetch(`${url}/left-early`, { method: 'PUT', body: 'x', signal: aborted.signal }).catch(
      (err) => err,
    );
    await new Promise((r) => setTimeout(r, 100));
    aborted.abort();
    expect(await pending).toBeInstanceOf(Error);
    await expect
      .poll(async () => (await captured(created.body.webhook_id)).map((c) => c.path))
      .toContain(`/webhook/${created.body.webhook_id}/left-early`);
  });

  it(
    'changes the answer at once on update, ' + 'back to the default with null, and refuses what it must not send',
    async () => {
      // The contract's create takes no body; a body may carry the settings, and a key it does not know is refused,
      // named.
      const unknown = await api('POST', 'my-webhook-create', { name: 'mine', forwardUrl: 'http://127.0.0.1:9/' });
      expectErrorShape(unknown, 400);
      expect(unknown.body.message).toBe('name: is not a field of this body (a typo?)');
      expect((await api('POST', 'my-webhook-create', { forwardUrl: 'http://127.0.0.1:9/' })).body.message).toBe(
        'forwardUrl: is not a field of this body (did you mean forward_url?)',
      );
      const created = await api('POST', 'my-webhook-create', {});
      expect(created.status).toBe(201);
      expect(created.body.response).toBeNull();
      expectErrorShape(await api('POST', 'my-webhook-create', { response: { status: 99 } }), 400);
      const id = created.body.webhook_id as string;
      const url = created.body.webhook_url as string;
      const first = await fetch(url, { method: 'POST' });
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({ success: true, message: 'Request captured' });

      // Retries: a 503 with a Retry-After, answered from the next capture on (no minute-long cache).
      const updated = await api('POST', 'my-webhook-update', {
        webhook_id: id,
        response: { status: 503, headers: { 'Retry-After': '5' } },
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        success: true,
        webhook_id: id,
        response: { status: 503, headers: { 'Retry-After': '5' }, body: '', delay_ms: 0 },
      });
      const unavailable = await fetch(url, { method: 'POST' });
      expect(unavailable.status).toBe(503);
      expect(unavailable.headers.get('retry-after')).toBe('5');
      expect(await unavailable.text()).toBe('');
      // A browser's preflight still gets the CORS answer it needs.
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: { 'access-control-request-method': 'POST', origin: 'https://example.test' },
      });
      expect(preflight.status).toBe(200);
      expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');

      expect((await api('POST', 'my-webhook-update', { webhook_id: id, response: null })).status).toBe(200);
      expect((await fetch(url, { method: 'POST' })).status).toBe(200);
      expect(await captured(id)).toHaveLength(4); // every capture stored, whatever it was answered

      const cases: Array<[unknown, RegExp]> = [
        [{ status: 101 }, /response\.status: must be from 200 to 599/],
        [{ status: 600 }, /response\.status: must be from 200 to 599/],
        [{ headers: { Connection: 'close' } }, /response\.headers: must not set connection/],
        [{ headers: { 'Content-Length': '1' } }, /response\.headers: must not set/],
        [
          { headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-h${i}`, 'v'])) },
          /response\.headers: must hold at most 20 headers/,
        ],
        [
          { headers: { 'X-Bad': 'a\r\nb' } },
          /response\.headers\.X-Bad: must be tabs, visible ASCII or Latin-1 characters \(no line breaks\)/,
        ],
        [{ body: 'x'.repeat(64 * 1024 + 1) }, /response\.body: must be at most 64 KiB/],
        [{ delay_ms: 30_001 }, /response\.delay_ms: must be from 0 to 30000/],
        [{ delay: 5 }, /response/],
        [
          { headers: { 'Set-Cookie': 'sid=1' } },
          /response\.headers: must not set .*set-cookie.*capture URLs share the service's origin/,
        ],
        [{ headers: { 'Content-Security-Policy': 'default-src *' } }, /response\.headers: must not set/],
        [{ headers: { 'X-Price': '10 €' } }, /response\.headers\.X-Price: must be tabs, visible ASCII or Latin-1/],
        ['teapot', /response: must be an object/],
      ];
      for (const [response, message] of cases) {
        const refused = await api('POST', 'my-webhook-update', { webhook_id: id, response });
        expectErrorShape(refused, 400);
        expect(refused.body.message, JSON.stringify(response).slice(0, 80)).toMatch(message);
      }
      // The edges are accepted: 64 KiB, 20 headers, 30 s, 599.
      const edge = {
        status: 599,
        headers: Object.fromEntries(
          Array.from({ length: 20 }, (_, i) => [`x-h${i}`, i ? 'v' : 'caf\u00e9 \t'.padEnd(1024, 'x')]),
        ),
        body: 'x'.repeat(64 * 1024),
        delay_ms: 30_000,
      };
      expect((await api('POST', 'my-webhook-update', { webhook_id: id, response: edge })).status).toBe(200);
      // Another user's webhook: 404, as an unknown one.
      const stranger = await newAccount(target);
      expectErrorShape(
        await call(target, 'POST', '/api/v1/network/my-webhook-update', {
          key: stranger.key,
          json: { webhook_id: id, response: null },
        }),
        404,
      );
    },
  );
});
