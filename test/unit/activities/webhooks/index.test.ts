// The webhook activities with their real dependencies: an embedded database (PGlite, migrated, its own
// for this file) and a receiver on loopback, the address guard allowing loopback only. The forwarder's
// look finds the deliveries due, a batch delivers each capture once as it was captured and records
// every attempt (a refusal sets its retry with backoff, the tenth is the last, a refused address fails
// at once), and the upkeep's expiry and stalled-delivery check read the same tables.
import type http from 'node:http';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookActivities, type WebhookActivities } from '../../../../activities/webhooks/index.ts';
import { recordDeliveryAttempts } from '../../../../db/webhooks/capture-deliveries.ts';
import type { CaptureDelivery } from '../../../../db/schema.ts';
import { openDatabase, type DatabaseHandle } from '../../../../db/connect.ts';
import { upsertUser } from '../../../../db/users.ts';
import {
  createWebhook,
  insertCaptures,
  listCapturedRequests,
  type CaptureRecord,
} from '../../../../db/webhooks/webhooks.ts';
import { retryDelayMs, type DeliveryGroup } from '../../../../lib/jobs/webhooks.ts';
import { DELIVERY_HEADER } from '../../../../lib/webhooks/webhook-resend.ts';
import { tempDir } from '../../../support/processes.ts';
import { startReceiver, type Received, type Receiver } from '../../../support/receiver.ts';

let database: DatabaseHandle;
let activities: WebhookActivities;
let receiver: Receiver;
let userId: number;
const received: Received[] = [];
let answerStatus = 204;
// deliverCaptures reads its activity context (to warn when it cannot raise the delivery floors).
const context = new MockActivityEnvironment();

beforeAll(async () => {
  database = await openDatabase({ databaseUrl: undefined, dataDir: await tempDir('webhook-activities') });
  receiver = await startReceiver('127.0.0.1', received, (_got, res: http.ServerResponse) => {
    res.writeHead(answerStatus).end('thanks');
  });
  activities = createWebhookActivities({ db: database.db, embedded: true, allow: ['127.0.0.1/32'] });
  userId = (await upsertUser(database.db, 'webhook-activities@example.test', 'free')).id;
});
afterAll(async () => {
  await receiver?.close();
  await database?.close();
});
afterEach(async () => {
  await database.db.deleteFrom('captured_requests').execute();
  await database.db.deleteFrom('webhooks').execute();
  received.length = 0;
  answerStatus = 204;
});

const capture = (webhookId: string, body: string): CaptureRecord => ({
  webhookId,
  method: 'POST',
  path: `/webhook/${webhookId}/orders`,
  headers: { 'content-type': 'application/json', 'x-sender': 'shop', host: 'capture.example' },
  body,
  bodyEncoding: 'utf8',
  bodySize: body.length,
  queryParams: JSON.stringify({ page: '2' }),
  ipAddress: '127.0.0.1',
  userAgent: 'shop/1.0',
  createdAt: new Date(),
});
const forwardingWebhook = async (forwardUrl = `${receiver.url}/hooks`) =>
  (await createWebhook(database.db, userId, 100, { forwardUrl }))!;
/** The captures of webhook `ref`, oldest first. */
const captures = (ref: number) => listCapturedRequests(database.db, ref, 100, 0, { oldestFirst: true });
const deliver = (groups: DeliveryGroup[]) =>
  context.run(activities.deliverCaptures, groups) as ReturnType<WebhookActivities['deliverCaptures']>;

describe('dueDeliveries and deliverCaptures', () => {
  it(
    'find the captures due and deliver each once to the forward URL, ' + 'as it was captured, recording the success',
    async () => {
      const w = await forwardingWebhook();
      await insertCaptures(database.db, [capture(w.webhookId, '{"n":1}'), capture(w.webhookId, '{"n":2}')]);
      await insertCaptures(database.db, [capture(w.webhookId, '{"n":3}')]);
      const ids = (await captures(w.id)).map((c) => c.id);
      const due = await activities.dueDeliveries([], 20, 25);
      expect(due).toEqual({ groups: [{ webhookId: w.webhookId, ids }], nextRetryAt: null });
      // At most `perWebhook` of a webhook; none of a webhook with a batch on its way.
      expect((await activities.dueDeliveries([], 2, 25)).groups).toEqual([
        { webhookId: w.webhookId, ids: ids.slice(0, 2) },
      ]);
      expect((await activities.dueDeliveries([w.webhookId], 20, 25)).groups).toEqual([]);

      expect(await deliver(due.groups)).toEqual({ delivered: 3, nextRetryAt: null });
      const sent = [...received].sort((a, b) => a.body.toString().localeCompare(b.body.toString()));
      expect(sent.map((r) => [r.method, r.url, r.body.toString()])).toEqual([
        ['POST', '/hooks/orders?page=2', '{"n":1}'],
        ['POST', '/hooks/orders?page=2', '{"n":2}'],
        ['POST', '/hooks/orders?page=2', '{"n":3}'],
      ]);
      expect(sent.map((r) => r.headers[DELIVERY_HEADER])).toEqual(ids.map((id) => `${w.webhookId}/${id}`));
      expect(sent[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-sender': 'shop' });
      expect(sent[0]!.headers.host).toBe(new URL(receiver.url).host); // the sender's Host is not sent on
      for (const c of await captures(w.id))
        expect(c.delivery).toMatchObject({
          status: 'success',
          attempts: 1,
          response_status: 204,
          history: [{ attempt: 1, response_status: 204, error: null }],
        });
      expect(await activities.dueDeliveries([], 20, 25)).toEqual({ groups: [], nextRetryAt: null });
    },
  );

  it('set the next attempt of a delivery the receiver refused, with backoff, and fail it after the tenth', async () => {
    answerStatus = 503;
    const w = await forwardingWebhook();
    await insertCaptures(database.db, [capture(w.webhookId, 'ninth'), capture(w.webhookId, 'tenth')]);
    const [ninth, tenth] = (await captures(w.id)).map((c) => c.id);
    // Their earlier attempts failed; their retries are due.
    const tried = (id: number, attempt: number) => ({
      ref: w.id,
      id,
      status: 'pending' as const,
      nextAttemptAt: new Date(Date.now() - 1000).toISOString(),
      attempt: { attempt, at: new Date().toISOString(), duration_ms: 1, response_status: 500, error: 'answered 500' },
    });
    await recordDeliveryAttempts(database.db, [tried(ninth!, 8), tried(tenth!, 9)]);
    const due = await activities.dueDeliveries([], 20, 25);
    expect(due.groups).toEqual([{ webhookId: w.webhookId, ids: [ninth, tenth] }]);

    const result = await deliver(due.groups);
    expect(received).toHaveLength(2);
    const [a, b] = (await captures(w.id)).map((c) => c.delivery!) as [CaptureDelivery, CaptureDelivery];
    expect(a).toMatchObject({ status: 'pending', attempts: 9, response_status: 503 });
    expect(a.history.at(-1)).toMatchObject({ attempt: 9, response_status: 503, error: 'the receiver answered 503' });
    // The ninth failure waits 256 s for the tenth attempt.
    const wait = Date.parse(a.next_attempt_at!) - Date.parse(a.history.at(-1)!.at);
    expect(wait).toBeGreaterThanOrEqual(retryDelayMs(9));
    expect(wait).toBeLessThan(retryDelayMs(10));
    expect(b).toMatchObject({ status: 'failed', attempts: 10, response_status: 503, next_attempt_at: null });
    expect(result).toEqual({ delivered: 0, nextRetryAt: Date.parse(a.next_attempt_at!) });
    expect(await activities.dueDeliveries([], 20, 25)).toEqual({ groups: [], nextRetryAt: result.nextRetryAt });
  });

  it('fail at once, sending nothing, a delivery to an address outside the networks allowed', async () => {
    const w = await forwardingWebhook('http://127.0.0.2:9/hooks');
    await insertCaptures(database.db, [capture(w.webhookId, 'x')]);
    expect(await deliver((await activities.dueDeliveries([], 20, 25)).groups)).toEqual({
      delivered: 0,
      nextRetryAt: null,
    });
    const [c] = await captures(w.id);
    expect(c!.delivery).toMatchObject({ status: 'failed', attempts: 1, response_status: null, next_attempt_at: null });
    expect(c!.delivery!.history[0]!.error).toMatch(/not allowed/);
    expect(received).toEqual([]);
  });

  it('skip the captures of a webhook that is gone', async () => {
    expect(await deliver([{ webhookId: 'no-such-webhook', ids: [1, 2] }])).toEqual({ delivered: 0, nextRetryAt: null });
    expect(received).toEqual([]);
  });
});

describe('expireCaptures and deliveriesStalled', () => {
  it("delete the captures past their webhook's retention, by age and by count", async () => {
    const w = (await createWebhook(database.db, userId, 100, { retention: { max_requests: 2, max_age_days: 1 } }))!;
    await insertCaptures(
      database.db,
      ['1', '2', '3', '4'].map((n) => capture(w.webhookId, n)),
    );
    await database.db
      .updateTable('captured_requests')
      .set({ created_at: new Date(Date.now() - 2 * 86_400_000) })
      .where('body', '=', '1')
      .execute();
    expect(await activities.expireCaptures()).toBe(2); // '1' by age, '2' by count
    expect((await captures(w.id)).map((c) => c.body)).toEqual(['3', '4']);
    expect(await activities.expireCaptures()).toBe(0);
  });

  it('tell when a delivery has waited over a minute past its time', async () => {
    const w = await forwardingWebhook();
    await insertCaptures(database.db, [capture(w.webhookId, 'late')]);
    expect(await activities.deliveriesStalled()).toBe(false);
    await database.db
      .updateTable('captured_requests')
      .set({ created_at: new Date(Date.now() - 120_000) })
      .execute();
    expect(await activities.deliveriesStalled()).toBe(true);
  });
});
