// The live stream of a webhook's captures (webhooks.requestsStream) on a real database: a capture that
// commits after a later one (out of id order) is sent once; a stream resumed after a Last-Event-ID
// sends nothing at or below it; one resumed after more than a page of captures sends every one of
// them, oldest page first. Late commits are rows inserted with a lower id after higher ones.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { upsertUser } from '../../db/users.ts';
import { createWebhook } from '../../db/webhooks/webhooks.ts';
import { webhookService } from '../../api/services/webhooks/webhooks.ts';
import { contractDatabases, useDatabase } from '../support/databases.ts';
import { CAPTURE_PAGE_BODY_BYTES } from '../../lib/plans.ts';

const MiB = 1024 * 1024;

const databases = contractDatabases('stream');

describe.each(databases)('webhook capture stream (%s)', (_kind, open) => {
  const handle = useDatabase(open);

  /** A webhook keeping 5,000 captures, and a way to store captures under ids of our choosing. */
  async function webhook() {
    const user = await upsertUser(handle.db, `stream-${randomUUID()}@example.test`, 'enterprise');
    const hook = (await createWebhook(handle.db, user.id, 100, {
      retention: { max_requests: 5000, max_age_days: 30 },
    }))!;
    // Ids far above the sequence's, so they never meet other suites' rows.
    const base = 1e12 + Math.floor(Math.random() * 1e9) * 10_000;
    /** Captures of bodies `o` (their offsets), or of `bytes` bytes each. */
    const storeSized = async (bytes: number | null, offsets: number[]) => {
      for (const o of offsets) {
        const body = bytes === null ? String(o) : 'x'.repeat(bytes);
        await sql`insert into captured_requests (id, webhook_ref, method, path, headers, body, body_encoding,
            body_size, query_params, ip_address, user_agent, created_at)
          values (${base + o}, ${hook.id}, 'POST', ${`/webhook/${hook.webhookId}`}, '{}'::jsonb, ${body}, 'utf8',
            ${body.length}, null, '127.0.0.1', 'test', now())`.execute(handle.db);
      }
    };
    const store = (...offsets: number[]) => storeSized(null, offsets);
    const views = webhookService({ db: handle.db, baseUrl: 'https://x.test' });
    const stream = (after?: number) => {
      const tick = views.requestsStream(user.id, hook.webhookId, after === undefined ? 0 : base + after);
      return async () => {
        const answer = await tick();
        const e = answer.events[0] as { id?: string; data: { data: { requests: Array<{ id: number }> } } } | undefined;
        return e
          ? {
              id: e.id === undefined ? undefined : Number(e.id) - base,
              ids: e.data.data.requests.map((r) => r.id - base),
              more: answer.more ?? false,
            }
          : undefined;
      };
    };
    return { store, storeSized, stream };
  }

  it('sends late commits with lower ids, and never the same capture twice', async () => {
    const { store, stream } = await webhook();
    const next = stream();
    expect(await next()).toMatchObject({ ids: [] }); // the first event, empty
    await store(102); // batch B commits first
    expect(await next()).toMatchObject({ id: 102, ids: [102] });
    await store(101, 103); // batch A's row, committed later, and a new one
    expect(await next()).toMatchObject({ id: 103, ids: [103, 101] });
    expect(await next()).toBeUndefined(); // nothing new: no event
  });

  it('resumes after a Last-Event-ID: nothing at or below it, late commits above it still sent', async () => {
    const { store, stream } = await webhook();
    await store(100, 101);
    const next = stream(101);
    expect(await next()).toEqual({ id: 101, ids: [], more: false }); // the first event: nothing after 101 yet
    await store(104);
    expect(await next()).toMatchObject({ id: 104, ids: [104] });
    await store(99, 103); // 99 is at or below the resume point: never sent; 103 committed late
    expect(await next()).toMatchObject({ id: 104, ids: [103] });
    expect(await next()).toBeUndefined();
  });

  it(
    'sends a late commit below a window full of sent captures, and never the captures older than a new ' +
      "stream's first page",
    async () => {
      const { store, stream } = await webhook();
      await store(...Array.from({ length: 700 }, (_, k) => k + 1));
      const next = stream();
      const first = await next(); // a new stream: the newest page only
      expect(first!.ids).toHaveLength(500);
      expect(first!.ids.at(-1)).toBe(201);
      await store(...Array.from({ length: 600 }, (_, k) => 1000 + k)); // 600 new ones: sent, then a window full of them
      expect((await next())!.ids).toHaveLength(500);
      expect((await next())!.ids).toHaveLength(100);
      await store(950); // committed late, below 600 sent captures
      expect(await next()).toMatchObject({ ids: [950] });
      expect(await next()).toBeUndefined(); // and 1..200, older than the first page, never
    },
  );

  it(
    'resumed after more than a page, sends every capture since, ' + 'oldest page first, each event newest first',
    async () => {
      const { store, stream } = await webhook();
      await store(...Array.from({ length: 1200 }, (_, k) => k + 1));
      const next = stream(100); // 1,100 captures after the resume point
      const first = await next();
      expect(first).toMatchObject({ id: 600, more: true });
      expect(first!.ids).toEqual(Array.from({ length: 500 }, (_, k) => 600 - k));
      expect(await next()).toMatchObject({ id: 1100, more: true });
      const last = await next();
      expect(last).toMatchObject({ id: 1200, more: false });
      expect(last!.ids).toHaveLength(100);
      expect(await next()).toBeUndefined();

      // A new stream (no Last-Event-ID) starts with the newest page, as the polling answer does.
      expect((await stream()())!.ids.slice(0, 2)).toEqual([1200, 1199]);
    },
  );

  it('holds at most CAPTURE_PAGE_BODY_BYTES of bodies in an event, and sends the rest in the next ones', async () => {
    expect(CAPTURE_PAGE_BODY_BYTES).toBe(8 * MiB);
    const { storeSized, stream } = await webhook();
    await storeSized(
      MiB,
      Array.from({ length: 12 }, (_, k) => k + 1),
    ); // 12 MiB of bodies
    // A new stream: its first event is the newest 8 MiB; the older captures are not news.
    const next = stream();
    expect((await next())!.ids).toEqual([12, 11, 10, 9, 8, 7, 6, 5]);
    expect(await next()).toBeUndefined();
    // Resumed before them all: oldest first, 8 MiB an event, every capture once.
    const resumed = stream(0);
    expect(await resumed()).toMatchObject({ ids: [8, 7, 6, 5, 4, 3, 2, 1], more: true });
    expect(await resumed()).toMatchObject({ ids: [12, 11, 10, 9], more: false });
    expect(await resumed()).toBeUndefined();
  });
});
