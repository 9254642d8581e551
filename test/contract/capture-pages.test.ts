// A page of captures (a listing, an export's read) carries at most CAPTURE_PAGE_BODY_BYTES of bodies,
// its first capture whatever its size: a reader who pages on gets every capture once, and no one answer
// holds hundreds of megabytes. On PGlite, and on Postgres when DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/connect.ts';
import { upsertUser } from '../../db/users.ts';
import { listCapturedRequestsWithin } from '../../db/webhooks/captured-requests.ts';
import { createWebhook, insertCaptures } from '../../db/webhooks/webhooks.ts';
import { webhookExportService } from '../../api/services/webhooks/webhook-export.ts';
import { webhookService } from '../../api/services/webhooks/webhooks.ts';
import { CAPTURE_PAGE_BODY_BYTES } from '../../lib/plans.ts';
import { loadReplayService, MAX_REPLAY_BODY_BYTES } from '../../api/services/load-tests/load-replay.ts';
import { startBody } from '../../contract/load/load-test-start.ts';
import { captureRecord, contractDatabases } from '../support/databases.ts';

const MiB = 1024 * 1024;
const databases = contractDatabases();

describe.each(databases)('pages of large captures (%s)', (_kind, open) => {
  let handle: DatabaseHandle;
  let userId: number;
  let webhookId: string;
  let ref: number;
  beforeAll(async () => {
    handle = await open();
    userId = (await upsertUser(handle.db, `pages-${randomUUID()}@example.test`, 'pro')).id;
    const webhook = (await createWebhook(handle.db, userId, 10))!;
    [webhookId, ref] = [webhook.webhookId, webhook.id];
    // 12 text bodies of 1 MiB (a letter each), oldest first, then 3 binary ones of 3 MiB (4 MiB as base64).
    for (let i = 0; i < 12; i++)
      await insertCaptures(handle.db, [captureRecord(webhookId, String.fromCharCode(97 + i).repeat(MiB))]);
    for (let i = 0; i < 3; i++) {
      const bytes = Buffer.alloc(3 * MiB, i);
      await insertCaptures(handle.db, [
        captureRecord(webhookId, bytes.toString('base64'), { bodyEncoding: 'base64', bodySize: bytes.length }),
      ]);
    }
  }, 120_000);
  afterAll(() => handle.close());

  it('is 8 MiB of bodies at most', () => expect(CAPTURE_PAGE_BODY_BYTES).toBe(8 * MiB));

  it('ends a listing page where its bodies would pass the bound, and the next page goes on from there', async () => {
    const service = webhookService({ db: handle.db, baseUrl: 'https://tools.example.test' });
    const pages: Array<{ count: number; bodies: number }> = [];
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await service.search(userId, webhookId, { filter: {}, limit: 500, cursor });
      expect(page.total).toBe(15);
      pages.push({ count: page.count, bodies: page.requests.reduce((n, r) => n + (r.body?.length ?? 0), 0) });
      seen.push(...page.requests.map((r) => r.id));
      cursor = 'next_cursor' in page ? (page.next_cursor as string) : undefined;
    } while (cursor);
    // Newest first: two binary ones (8 MiB as base64), the third with four letters (4 + 4 MiB), then the
    // other eight letters (8 MiB).
    expect(pages.map((p) => p.count)).toEqual([2, 5, 8]);
    for (const p of pages) expect(p.bodies).toBeLessThanOrEqual(8 * MiB);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    expect(new Set(seen).size).toBe(15);
  });

  it('takes the first capture of a page whatever its size, and says what it left', async () => {
    const one = await listCapturedRequestsWithin(handle.db, ref, 500, {}, 10);
    expect(one.rows).toHaveLength(1);
    expect(one.cut).toBe(true);
    const all = await listCapturedRequestsWithin(handle.db, ref, 500, {}, 64 * MiB);
    expect(all.rows).toHaveLength(15);
    expect(all.cut).toBe(false);
    const oldest = await listCapturedRequestsWithin(handle.db, ref, 3, { oldestFirst: true }, 64 * MiB);
    expect(oldest.rows.map((r) => r.body?.[0])).toEqual(['a', 'b', 'c']);
    expect(oldest.cut).toBe(false);
  });

  it('exports every capture once, in pages of at most the bound', async () => {
    const webhooks = webhookService({ db: handle.db, baseUrl: 'https://tools.example.test' });
    const exports = webhookExportService({ db: handle.db, baseUrl: 'https://tools.example.test', webhooks });
    let text = '';
    for await (const chunk of await exports.export(userId, webhookId, {}, 'json')) text += chunk;
    const doc = JSON.parse(text) as { requests: Array<{ id: number }> };
    expect(doc.requests).toHaveLength(15);
    expect(new Set(doc.requests.map((r) => r.id)).size).toBe(15);
  });

  it("reads a replay's captures only up to its bodies' limit, and refuses it past that", async () => {
    // What the database sends back, counted: the bodies of every row the replay's reads return.
    let read = 0;
    const counted = handle.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        for (const row of args.result.rows as Array<{ body?: unknown }>)
          if (typeof row.body === 'string') read += row.body.length;
        return args.result;
      },
    });
    const replays = loadReplayService({
      db: counted,
      captures: webhookService({ db: handle.db, baseUrl: 'https://tools.example.test' }),
    });
    const body = startBody.parse({
      targetUrl: 'https://shop.example/',
      replay: { webhook_id: webhookId, speed: 0 },
      testDuration: 60,
    });
    await expect(replays.sequence(userId, 'pro', body, new URL('https://shop.example/'))).rejects.toMatchObject({
      status: 400,
      message:
        `replay: the requests' bodies come to more than ${MAX_REPLAY_BODY_BYTES} bytes: ` +
        'replay fewer (ids, filter)',
    });
    // 24 MiB stored (12 of letters, 12 of base64): no more than the limit as base64 and one capture was read.
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThanOrEqual(Math.ceil(MAX_REPLAY_BODY_BYTES / 3) * 4 + 4 * MiB);
  });
});
