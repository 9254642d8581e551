// Search over a webhook that keeps 10,000 captures, the most a plan allows: every filter finds
// exactly what it should when paged through to the end, and a smaller retention hides the rest at
// once. On PGlite, and on Postgres when DATABASE_URL is set. (Its speed: npm run bench:webhook-search.)
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/connect.ts';
import { upsertUser } from '../../db/users.ts';
import { createWebhook, insertCaptures, setWebhookSettings, type CaptureFilter } from '../../db/webhooks/webhooks.ts';
import { webhookService } from '../../api/services/webhooks/webhooks.ts';
import { captureRecord, contractDatabases } from '../support/databases.ts';

const databases = contractDatabases();

const N = 10_000;
const START = Date.now() - N * 1000;

describe.each(databases)('search over 10,000 captures (%s)', (_kind, open) => {
  let handle: DatabaseHandle;
  let userId: number;
  let webhookId: string;
  beforeAll(async () => {
    handle = await open();
    userId = (await upsertUser(handle.db, `search-${randomUUID()}@example.test`, 'pro')).id;
    const webhook = (await createWebhook(handle.db, userId, 10, { retention: { max_requests: N, max_age_days: 30 } }))!;
    webhookId = webhook.webhookId;
    const record = (i: number) => {
      const body = JSON.stringify({ id: `evt_${i}`, customer: `cus_${i}` });
      return captureRecord(webhookId, body, {
        method: i % 10 === 0 ? 'PUT' : 'POST',
        headers: { 'content-type': 'application/json', 'x-event': i % 3 === 0 ? 'invoice.paid' : 'customer.updated' },
        createdAt: new Date(START + i * 1000),
      });
    };
    for (let i = 0; i < N; i += 500)
      await insertCaptures(
        handle.db,
        Array.from({ length: 500 }, (_, k) => record(i + k)),
      );
  }, 120_000);
  afterAll(() => handle.close());

  /** Every page of a search, concatenated: the bodies' event numbers, newest first. */
  async function all(filter: CaptureFilter, limit = 500): Promise<number[]> {
    const service = webhookService({ db: handle.db, baseUrl: 'https://tools.example.test' });
    const found: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await service.search(userId, webhookId, { filter, limit, cursor });
      found.push(...page.requests.map((r) => Number(JSON.parse(r.body!).id.slice(4))));
      cursor = 'next_cursor' in page ? (page.next_cursor as string) : undefined;
    } while (cursor);
    return found;
  }
  const expected = (keep: (i: number) => boolean) => Array.from({ length: N }, (_, k) => N - 1 - k).filter(keep);

  it('pages through all 10,000, newest first, and finds by each filter exactly', async () => {
    expect(await all({})).toEqual(expected(() => true));
    expect(await all({ method: 'PUT' })).toEqual(expected((i) => i % 10 === 0));
    expect(await all({ header: { name: 'x-event', value: 'invoice.paid' } })).toEqual(expected((i) => i % 3 === 0));
    expect(await all({ header: { name: 'x-event' } }, 200)).toHaveLength(N);
    expect(await all({ text: 'CUS_4242"' })).toEqual([4242]);
    expect(await all({ since: new Date(START + 2_000 * 1000), until: new Date(START + 2_100 * 1000) })).toEqual(
      expected((i) => i >= 2_000 && i < 2_100),
    );
    expect(
      await all({
        method: 'PUT',
        header: { name: 'x-event', value: 'invoice.paid' },
        since: new Date(START + 9_000 * 1000),
      }),
    ).toEqual(expected((i) => i % 30 === 0 && i >= 9_000));
  }, 120_000);

  it('shows only what a smaller retention keeps, at once', async () => {
    expect(
      await setWebhookSettings(handle.db, userId, webhookId, { retention: { max_requests: 100, max_age_days: 30 } }),
    ).toBe(true);
    expect(await all({})).toEqual(expected((i) => i >= N - 100));
    expect(await all({ method: 'PUT' })).toEqual(expected((i) => i >= N - 100 && i % 10 === 0));
    // By age: the captures are spread over the last 10,000 s; a day keeps them all, and none is older.
    expect(
      await setWebhookSettings(handle.db, userId, webhookId, { retention: { max_requests: N, max_age_days: 1 } }),
    ).toBe(true);
    expect(await all({})).toHaveLength(N);
  }, 60_000);
});
