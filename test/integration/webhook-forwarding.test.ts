// Forwarding: each capture of a webhook with a forward_url is delivered, byte for byte, to a loopback
// receiver the test starts, through a Temporal activity that retries with backoff; every attempt
// shows on the capture. Forward URLs the SSRF guard refuses are refused before anything is sent.
// Retention: what a webhook keeps, bounded by the plan, and the scheduled expiry's workflow.
import type http from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_UPKEEP_SCHEDULE_ID } from '../../lib/jobs/index.ts';
import { encryptingDataConverter, loadPayloadKey } from '../../lib/temporal/codec.ts';
import { expectErrorShape, networkApi, newAccount, targets, webhookCaptures } from '../support/client.ts';
import { allowedAndForbiddenReceivers, expectReceivedAsSent, type Received } from '../support/receiver.ts';

const until = async <T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

describe.each(targets())('webhook forwarding and retention ($name)', (target) => {
  const account = newAccount(target);
  const received: Received[] = [];
  let flakyLeft = 2;
  const answer = (got: Received, res: http.ServerResponse) => {
    if (got.url.includes('/down')) return res.writeHead(503).end('down');
    if (got.url.includes('/flaky') && flakyLeft-- > 0) return res.writeHead(500).end('not yet');
    res.writeHead(204).end();
  };
  /** The receiver, and the same on 127.0.0.2, which must never be reached. */
  const receivers = allowedAndForbiddenReceivers(received, answer);
  /** GET without a body, POST with one, as `as` (the suite's account unless given). */
  const api = (path: string, json?: unknown, as: { key: string } | Promise<{ key: string }> = account) =>
    networkApi(target, as)(json === undefined ? 'GET' : 'POST', path, json);
  const capturesOf = (webhookId: string) => webhookCaptures(target, account, webhookId);

  it(
    'delivers each capture byte for byte with its path, query and headers, retrying a failing receiver until ' +
      'it answers 2xx',
    async () => {
      const created = await api('my-webhook-create', { forward_url: `${receivers.allowed}/in/` });
      expect(created.status, created.text).toBe(201);
      expect(created.body.forward_url).toBe(`${receivers.allowed}/in/`);
      const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f, ...Buffer.from('tail')]);
      const sent = await fetch(`${created.body.webhook_url}/flaky/stripe?attempt=1&tag=a&tag=b`, {
        method: 'PUT',
        body: bytes,
        headers: { 'content-type': 'application/octet-stream', 'stripe-signature': 't=1,v1=abc' },
      });
      expect(sent.status).toBe(200);
      const capture = await until('the delivery to succeed', async () =>
        (await capturesOf(created.body.webhook_id)).find((c) => c.delivery?.status === 'success'),
      );
      // Two 500s, then the 204: three attempts, each recorded, the retries spaced by the backoff (1 s, then 2 s).
      expect(capture.delivery).toMatchObject({ status: 'success', attempts: 3, response_status: 204 });
      expect(capture.delivery.history.map((a: any) => [a.attempt, a.response_status])).toEqual([
        [1, 500],
        [2, 500],
        [3, 204],
      ]);
      expect(capture.delivery.history[0].error).toMatch(/500/);
      const tries = received.filter((r) => r.url.startsWith('/in/flaky'));
      expect(tries).toHaveLength(3);
      expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(900);
      expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(1900);
      for (const t of tries)
        expectReceivedAsSent(t, {
          method: 'PUT',
          url: '/in/flaky/stripe?attempt=1&tag=a&tag=b',
          body: bytes,
          headers: {
            'content-type': 'application/octet-stream',
            'stripe-signature': 't=1,v1=abc',
            'content-length': String(bytes.length),
            'x-netops-delivery': `${created.body.webhook_id}/${capture.id}`,
          },
        });

      // Many at once: every one delivered exactly once, each body its own.
      const before = received.length;
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          fetch(`${created.body.webhook_url}/many`, { method: 'POST', body: `capture ${i}` }),
        ),
      );
      const delivered = await until('30 deliveries', async () => {
        const all = (await capturesOf(created.body.webhook_id)).filter((c) => c.path.endsWith('/many'));
        return all.length === 30 && all.every((c) => c.delivery?.status === 'success') ? all : undefined;
      });
      expect(delivered.every((c) => c.delivery.attempts === 1)).toBe(true);
      const bodies = received
        .slice(before)
        .map((r) => r.body.toString())
        .sort();
      expect(bodies).toEqual(Array.from({ length: 30 }, (_, i) => `capture ${i}`).sort());

      // A forward of ours coming back (another name for this service) is stored, and not forwarded again.
      const returned = await fetch(`${created.body.webhook_url}/loop`, {
        method: 'POST',
        headers: { 'x-netops-delivery': 'elsewhere/1' },
        body: 'round',
      });
      expect(returned.status).toBe(200);
      const looped = await until('the returned capture', async () =>
        (await capturesOf(created.body.webhook_id)).find((c) => c.body === 'round'),
      );
      expect(looped.delivery).toBeUndefined();
    },
  );

  it('shows a delivery as failed when forwarding is turned off while it waits for a retry', async () => {
    const created = (await api('my-webhook-create', { forward_url: `${receivers.allowed}/down` })).body;
    await fetch(created.webhook_url, { method: 'POST', body: 'x' });
    await until('a first failed attempt', async () =>
      (await capturesOf(created.webhook_id))[0]?.delivery?.attempts >= 1 ? true : undefined,
    );
    const off = await api('my-webhook-update', { webhook_id: created.webhook_id, forward_url: null });
    expect(off.status, off.text).toBe(200);
    expect(off.body.forward_url).toBeNull();
    const capture = await until('the delivery to fail', async () =>
      (await capturesOf(created.webhook_id)).find((c) => c.delivery?.status === 'failed'),
    );
    expect(capture.delivery.history.at(-1).error).toMatch(/turned off/);
    expect(capture.delivery.history[0]).toMatchObject({ attempt: 1, response_status: 503 });
    // Captures after that are not forwarded: no delivery at all.
    await fetch(created.webhook_url, { method: 'POST', body: 'after' });
    const latest = await until('the capture', async () =>
      (await capturesOf(created.webhook_id)).find((c) => c.body === 'after'),
    );
    expect(latest.delivery).toBeUndefined();
  });

  it('refuses forward URLs the guard refuses, and this service itself, before anything is sent', async () => {
    const before = received.length;
    const refused = await api('my-webhook-create', { forward_url: `${receivers.forbidden}/in` });
    expectErrorShape(refused, 400);
    expect(refused.body.message).toMatch(/forward_url/);
    const created = (await api('my-webhook-create', {})).body;
    expectErrorShape(
      await api('my-webhook-update', { webhook_id: created.webhook_id, forward_url: `${receivers.forbidden}/in` }),
      400,
    );
    const loop = await api('my-webhook-update', {
      webhook_id: created.webhook_id,
      forward_url: `${target.baseUrl}/webhook/${created.webhook_id}`,
    });
    expectErrorShape(loop, 400);
    expect(loop.body.message).toMatch(/forward_url/);
    expectErrorShape(
      await api('my-webhook-update', { webhook_id: created.webhook_id, forward_url: 'ftp://127.0.0.1/' }),
      400,
    );
    expect(received.length).toBe(before);
  });

  it('bounds the webhooks that forward at once by the plan, exactly at the edge', async () => {
    const free = await newAccount(target, 'free');
    const make = (body: unknown) => api('my-webhook-create', body, free);
    const first = await make({ forward_url: `${receivers.allowed}/a` });
    expect(first.status, first.text).toBe(201);
    expect((await make({ forward_url: `${receivers.allowed}/b` })).status).toBe(201); // the 2nd: the free plan's most
    const third = await make({ forward_url: `${receivers.allowed}/c` });
    expectErrorShape(third, 403);
    expect(third.body.message).toMatch(/forward_url: at most 2 of your webhooks forward at once on the free plan/);
    const plain = (await make({})).body;
    expectErrorShape(
      await api('my-webhook-update', { webhook_id: plain.webhook_id, forward_url: `${receivers.allowed}/c` }, free),
      403,
    );
    // Changing the URL of one that forwards already is not one more; stopping one frees its place.
    expect(
      (
        await api(
          'my-webhook-update',
          { webhook_id: first.body.webhook_id, forward_url: `${receivers.allowed}/a2` },
          free,
        )
      ).status,
    ).toBe(200);
    expect(
      (await api('my-webhook-update', { webhook_id: first.body.webhook_id, forward_url: null }, free)).status,
    ).toBe(200);
    expect(
      (await api('my-webhook-update', { webhook_id: plain.webhook_id, forward_url: `${receivers.allowed}/c` }, free))
        .status,
    ).toBe(200);
  });

  it('keeps what the retention says, within the plan, and the expiry runs on its schedule', async () => {
    const created = await api('my-webhook-create', { retention: { max_requests: 3 } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.retention).toEqual({ max_requests: 3, max_age_days: 30 }); // the enterprise plan's days
    for (let i = 0; i < 5; i++) await fetch(created.body.webhook_url, { method: 'POST', body: `r${i}` });
    expect((await capturesOf(created.body.webhook_id)).map((c) => c.body)).toEqual(['r4', 'r3', 'r2']);
    const listed = (await api('my-webhooks')).body.data.webhooks.find(
      (w: any) => w.webhook_id === created.body.webhook_id,
    );
    expect(listed).toMatchObject({
      request_count: 3,
      retention: { max_requests: 3, max_age_days: 30 },
      forward_url: null,
    });
    // Keeping more from now on: the newest stay (what went past the count may be gone already).
    const widened = await api('my-webhook-update', {
      webhook_id: created.body.webhook_id,
      retention: { max_requests: 10_000, max_age_days: 30 },
    });
    expect(widened.status, widened.text).toBe(200);
    expect((await capturesOf(created.body.webhook_id)).slice(0, 3).map((c) => c.body)).toEqual(['r4', 'r3', 'r2']);
    // Bounds: the plan's, at the edge, and the field's own.
    const free = await newAccount(target, 'free');
    const edge = await api('my-webhook-create', { retention: { max_requests: 1_000, max_age_days: 7 } }, free);
    expect(edge.status, edge.text).toBe(201);
    const over = await api('my-webhook-create', { retention: { max_requests: 1_001 } }, free);
    expectErrorShape(over, 403);
    expect(over.body.message).toMatch(/retention\.max_requests: at most 1000 on the free plan/);
    expectErrorShape(
      await api('my-webhook-update', { webhook_id: edge.body.webhook_id, retention: { max_age_days: 8 } }, free),
      403,
    );
    const zero = await api('my-webhook-create', { retention: { max_requests: 0 } });
    expectErrorShape(zero, 400);
    expect(zero.body.message).toMatch(/retention\.max_requests/);
    expect((await api('my-webhook-create', {}, free)).body.retention).toEqual({
      max_requests: 500,
      max_age_days: 7,
    });

    // The expiry is a Temporal schedule an operator sees, every 5 minutes; its workflow completes.
    const dataConverter = encryptingDataConverter(await loadPayloadKey(target.env.PAYLOAD_KEY, target.env.DATA_DIR!));
    const client = new Client({
      connection: await Connection.connect({ address: target.temporalAddress }),
      namespace: target.env.TEMPORAL_NAMESPACE ?? 'default',
      dataConverter,
    });
    const schedule = client.schedule.getHandle(WEBHOOK_UPKEEP_SCHEDULE_ID);
    const described = await schedule.describe();
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'webhookUpkeep' });
    expect(described.spec.intervals?.[0]?.every).toBe(5 * 60_000);
    // Its workflow, run now (a triggered run could be skipped while a scheduled one is on: overlaps are skipped).
    const result = await client.workflow.execute('webhookUpkeep', {
      workflowId: `webhook-upkeep-test-${Date.now()}`,
      taskQueue: 'workflows',
      args: [],
      workflowExecutionTimeout: '45 seconds',
    });
    expect(result).toMatchObject({ deleted: expect.any(Number), woken: expect.any(Boolean) });
    await client.connection.close();
  });
});
