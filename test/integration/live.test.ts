// Live views for REST clients: Server-Sent Events with the shapes of the polling endpoints (new
// captures as they arrive; a load test's status until it ends), and 304 for polls that carry the
// ETag of an answer that has not changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';
import { call, expectErrorShape, newAccount, targets } from '../support/client.ts';
import type { Target } from '../support/global-setup.ts';
import { pacedTest } from '../support/load-tests.ts';

interface SseEvent {
  event: string;
  data: any;
  id?: string;
}

/** Reads a Server-Sent Events stream; `next()` waits for the following event (null once the stream ended). */
async function openEvents(target: Target, path: string, key: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(`${target.baseUrl}${path}`, {
    headers: { ...headers, 'X-API-Key': key, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const queue: SseEvent[] = [];
  let ended = false;
  const next = async (timeoutMs = 15_000): Promise<SseEvent | null> => {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0 && !ended) {
      if (Date.now() > deadline) throw new Error(`no event within ${timeoutMs} ms`);
      const { value, done } = await reader.read();
      if (done) ended = true;
      buffer += value ?? '';
      for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        const id = /^id: (.*)$/m.exec(block)?.[1];
        if (event && data) queue.push({ event, data: JSON.parse(data), ...(id === undefined ? {} : { id }) });
      }
    }
    return queue.shift() ?? null;
  };
  return { res, next, close: () => controller.abort() };
}

describe.each(targets())('live streams and conditional polling ($name)', (target) => {
  let key: string;
  let site: LoadTarget;
  beforeAll(async () => {
    key = (await newAccount(target)).key;
    site = await startLoadTarget();
  });
  afterAll(() => site?.close());

  it('streams captured requests as they arrive, and ends when the webhook is deleted', async () => {
    const { body: hook } = await call(target, 'POST', '/api/v1/network/my-webhook-create', { key });
    await fetch(`${target.baseUrl}/webhook/${hook.webhook_id}`, { method: 'POST', body: 'before' });
    await new Promise((r) => setTimeout(r, 100));
    const stream = await openEvents(
      target,
      `/api/v1/network/my-webhook-requests/events?webhook_id=${hook.webhook_id}`,
      key,
    );
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const first = await stream.next();
    expect(first).toMatchObject({
      event: 'requests',
      data: { success: true, webhook_id: hook.webhook_id, data: { total: 1 } },
    });
    expect(first!.data.data.requests[0].body).toBe('before');

    await fetch(`${target.baseUrl}/webhook/${hook.webhook_id}/live?x=1`, { method: 'PUT', body: 'live one' });
    const second = await stream.next();
    expect(second!.data.data).toMatchObject({
      total: 1,
      requests: [{ method: 'PUT', body: 'live one', query_params: '{"x":"1"}' }],
    });

    await call(target, 'POST', '/api/v1/network/my-webhook-delete', { key, json: { webhook_id: hook.webhook_id } });
    expect(await stream.next()).toMatchObject({ event: 'end', data: { webhook_id: hook.webhook_id } });
    expect(await stream.next()).toBeNull();
  });

  it('resumes after Last-Event-ID: a client that reconnects gets only the captures it has not seen', async () => {
    const { body: hook } = await call(target, 'POST', '/api/v1/network/my-webhook-create', { key });
    const path = `/api/v1/network/my-webhook-requests/events?webhook_id=${hook.webhook_id}`;
    const capture = (body: string) => fetch(`${target.baseUrl}/webhook/${hook.webhook_id}`, { method: 'POST', body });
    await capture('one');
    await capture('two');
    const first = await openEvents(target, path, key);
    const seen = await first.next();
    first.close();
    const requests = seen!.data.data.requests as Array<{ id: number; body: string }>;
    expect(requests.map((r) => r.body)).toEqual(['two', 'one']);
    expect(seen!.id).toBe(String(requests[0]!.id));

    await capture('three');
    const again = await openEvents(target, path, key, { 'Last-Event-ID': seen!.id! });
    const resumed = await again.next();
    expect(resumed!.data.data.requests.map((r: { body: string }) => r.body)).toEqual(['three']);
    expect(Number(resumed!.id)).toBeGreaterThan(Number(seen!.id));
    await capture('four');
    expect((await again.next())!.data.data.requests.map((r: { body: string }) => r.body)).toEqual(['four']);
    again.close();

    // From the id of the older capture: the newer one comes again, the older one not.
    const partial = await openEvents(target, path, key, { 'Last-Event-ID': String(requests[1]!.id) });
    expect((await partial.next())!.data.data.requests.map((r: { body: string }) => r.body)).toEqual([
      'four',
      'three',
      'two',
    ]);
    partial.close();

    const bad = await call(target, 'GET', path, { key, headers: { 'Last-Event-ID': 'yesterday' } });
    expectErrorShape(bad, 400);
    expect(bad.body.message).toContain('last-event-id');
  });

  it("refuses streams without a key, and for another user's webhook or test, before streaming", async () => {
    const { body: hook } = await call(target, 'POST', '/api/v1/network/my-webhook-create', { key });
    expectErrorShape(
      await call(target, 'GET', `/api/v1/network/my-webhook-requests/events?webhook_id=${hook.webhook_id}`),
      401,
    );
    const other = await newAccount(target);
    expectErrorShape(
      await call(target, 'GET', `/api/v1/network/my-webhook-requests/events?webhook_id=${hook.webhook_id}`, {
        key: other.key,
      }),
      404,
    );
    expectErrorShape(await call(target, 'GET', '/api/v1/load-testing/status/nosuchtest/events', { key }), 404);
  });

  it("streams a load test's status until it completes", async () => {
    const started = await call(target, 'POST', '/api/v1/load-testing/start', {
      key,
      json: pacedTest(`${site.url}/live`),
    });
    expect(started.status, started.text).toBe(202);
    const stream = await openEvents(target, `/api/v1/load-testing/status/${started.body.test_id}/events`, key);
    const seen: any[] = [];
    for (let e = await stream.next(30_000); e; e = await stream.next(30_000)) seen.push(e.data);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.every((s) => s.test_id === started.body.test_id && typeof s.progress === 'number')).toBe(true);
    expect(seen.some((s) => s.status === 'running' && s.metrics.total_requests > 0)).toBe(true);
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ status: 'completed', progress: 100 });
    // Progress never goes back.
    expect(seen.map((s) => s.progress)).toEqual([...seen.map((s) => s.progress)].sort((a, b) => a - b));
    // The last event is what polling says.
    expect(
      (await call(target, 'GET', `/api/v1/load-testing/status/${started.body.test_id}`, { key })).body.metrics,
    ).toEqual(last.metrics);
  }, 60_000);

  it('answers 304 to a poll whose ETag still matches, and 200 once the answer changed', async () => {
    const first = await call(target, 'GET', '/api/v1/network/my-webhooks', { key });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    const same = await call(target, 'GET', '/api/v1/network/my-webhooks', { key, headers: { 'if-none-match': etag } });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.get('ratelimit-remaining')).not.toBeNull();
    await call(target, 'POST', '/api/v1/network/my-webhook-create', { key });
    const changed = await call(target, 'GET', '/api/v1/network/my-webhooks', {
      key,
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });
});

describe.each(targets())('API reference ($name)', (target) => {
  it('serves the OpenAPI document without a key, and the interactive page with its assets from here', async () => {
    const doc = await call(target, 'GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ openapi: '3.1.0', servers: [{ url: target.baseUrl }] });
    expect(Object.keys(doc.body.paths)).toContain('/api/v1/site/audit');
    const page = await fetch(`${target.baseUrl}/docs`);
    const html = await page.text();
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    for (const asset of [...html.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1]!)) {
      const res = await fetch(`${target.baseUrl}${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[a-z]/); // no CDN
  });
});
