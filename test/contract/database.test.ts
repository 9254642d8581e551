// One contract, both databases: PGlite always, Postgres when DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { findKeyOwner, issueApiKey, revokeApiKey } from '../../db/api-keys.ts';
import { CaptureWriter } from '../../db/webhooks/capture-writer.ts';
import { openDatabase } from '../../db/connect.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { upsertUser } from '../../db/users.ts';
import {
  capturesEverStored,
  hasStalledDeliveries,
  findDueDeliveries,
  raiseDeliveryFloors,
  recordDeliveryAttempts,
  type AttemptRecord,
} from '../../db/webhooks/capture-deliveries.ts';
import { expireCaptures, trimCaptures } from '../../db/webhooks/capture-retention.ts';
import {
  ForwardingFullError,
  createWebhook,
  deleteOwnedWebhook,
  insertCaptures,
  listCapturedRequests,
  listWebhooks,
  setWebhookSettings,
} from '../../db/webhooks/webhooks.ts';
import { sha256Hex } from '../../lib/auth/tokens.ts';
import { captureRecord, contractDatabases, useDatabase } from '../support/databases.ts';
import { watchStatements } from '../support/statements.ts';

const databases = contractDatabases();
const capture = (webhookId: string, body: string) =>
  captureRecord(webhookId, body, { headers: { 'content-type': 'text/plain' } });

/** A delivery attempt of capture `id` (of webhook `ref`) that the receiver answered 2xx. */
const delivered = (ref: number, id: number, response_status = 204): AttemptRecord => ({
  ref,
  id,
  status: 'success',
  nextAttemptAt: null,
  attempt: { attempt: 1, at: new Date().toISOString(), duration_ms: 1, response_status, error: null },
});

describe.each(databases)('database contract (%s)', (kind, open) => {
  const handle = useDatabase(open);
  const user = () => upsertUser(handle.db, `db-${randomUUID()}@example.test`, 'free');
  /** A webhook of `userId` that forwards (to a port nothing listens on). */
  const forwardingWebhook = async (userId: number) =>
    (await createWebhook(handle.db, userId, 100, { forwardUrl: 'http://127.0.0.1:9/' }))!;

  it('migrates idempotently', async () => {
    expect(await migrateToLatest(handle.db)).toEqual([]);
    const tables = await sql<{
      tablename: string;
    }>`select tablename from pg_tables where schemaname = 'public'`.execute(handle.db);
    expect(tables.rows.map((r) => r.tablename)).toEqual(
      expect.arrayContaining(['users', 'api_keys', 'webhooks', 'captured_requests']),
    );
  });

  it('stores a hash and a prefix of an API key, never the key', async () => {
    const u = await user();
    const issued = await issueApiKey(handle.db, u.id);
    const row = await handle.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', issued.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(sha256Hex(issued.apiKey));
    expect(issued.apiKey.startsWith(row.prefix)).toBe(true);
    expect(row.prefix.length).toBeLessThan(issued.apiKey.length / 2);
    expect(JSON.stringify(row)).not.toContain(issued.apiKey);
    expect(await findKeyOwner(handle.db, issued.apiKey)).toMatchObject({ userId: u.id, plan: 'free' });
    expect(await revokeApiKey(handle.db, issued.apiKey)).toBe(true);
    expect(await revokeApiKey(handle.db, issued.apiKey)).toBe(false);
    expect(await findKeyOwner(handle.db, issued.apiKey)).toBeNull();
  });

  it('updates the plan when a user is created again', async () => {
    const email = `plan-${randomUUID()}@example.test`;
    const a = await upsertUser(handle.db, email, 'free');
    const b = await upsertUser(handle.db, email.toUpperCase(), 'pro');
    expect(b).toEqual({ id: a.id, email, plan: 'pro' });
  });

  it('creates webhooks up to the most a user may own, exactly, also when asked many times at once', async () => {
    const u = await user();
    const made = await Promise.all(Array.from({ length: 12 }, () => createWebhook(handle.db, u.id, 5)));
    expect(made.filter((w) => w !== null)).toHaveLength(5);
    expect(await createWebhook(handle.db, u.id, 5)).toBeNull();
    expect(await listWebhooks(handle.db, u.id, { max_requests: 1, max_age_days: 30 })).toHaveLength(5);
  });

  it('lets at most `maxForwarding` webhooks forward, also when many are set or made forwarding together', async () => {
    const u = await user();
    const forward = { forwardUrl: 'http://127.0.0.1:9/' };
    const mine = await Promise.all(Array.from({ length: 5 }, () => createWebhook(handle.db, u.id)));
    const set = await Promise.allSettled(mine.map((w) => setWebhookSettings(handle.db, u.id, w.webhookId, forward, 2)));
    const made = await Promise.allSettled(
      Array.from({ length: 3 }, () => createWebhook(handle.db, u.id, 100, forward, 2)),
    );
    const refused = [...set, ...made].filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(6);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ForwardingFullError);
    const forwarding = await listWebhooks(handle.db, u.id, { max_requests: 1, max_age_days: 30 });
    expect(forwarding.filter((w) => w.forwardUrl !== null)).toHaveLength(2);
    // A webhook that forwards already may change its URL; one that stops frees its place.
    const on = forwarding.find((w) => w.forwardUrl !== null)!;
    expect(await setWebhookSettings(handle.db, u.id, on.webhookId, { forwardUrl: 'http://127.0.0.1:10/' }, 2)).toBe(
      true,
    );
    expect(await setWebhookSettings(handle.db, u.id, on.webhookId, { forwardUrl: null }, 2)).toBe(true);
    const off = forwarding.find((w) => w.forwardUrl === null)!;
    expect(await setWebhookSettings(handle.db, u.id, off.webhookId, forward, 2)).toBe(true);
  });

  it('stores captures only for existing webhooks and trims each webhook to its newest `keep`', async () => {
    const u = await user();
    const a = await createWebhook(handle.db, u.id);
    const b = await createWebhook(handle.db, u.id);
    const batch = [
      ...['1', '2', '3', '4'].map((n) => capture(a.webhookId, n)),
      capture(b.webhookId, 'b1'),
      capture('unknown-webhook', 'lost'),
    ];
    const stored = await insertCaptures(handle.db, batch);
    expect(Object.fromEntries(stored)).toEqual({
      [a.webhookId]: { ref: a.id, added: 4, forwarding: false, keep: null },
      [b.webhookId]: { ref: b.id, added: 1, forwarding: false, keep: null },
    });
    // Listings show the newest `limit` even before a trim.
    expect((await listCapturedRequests(handle.db, a.id, 3)).map((r) => r.body)).toEqual(['4', '3', '2']);
    expect(
      (await listWebhooks(handle.db, u.id, { max_requests: 3, max_age_days: 30 })).map((w) => w.requestCount),
    ).toEqual([1, 3]);
    await trimCaptures(handle.db, [a.id, b.id], 3);
    expect((await listCapturedRequests(handle.db, a.id, 100)).map((r) => r.body)).toEqual(['4', '3', '2']);
    expect((await listCapturedRequests(handle.db, b.id, 100)).map((r) => r.body)).toEqual(['b1']);
    await insertCaptures(handle.db, [capture(a.webhookId, '5')]);
    await trimCaptures(handle.db, [a.id], 3);
    expect((await listCapturedRequests(handle.db, a.id, 100)).map((r) => r.body)).toEqual(['5', '4', '3']);
  });

  it(
    "keeps each webhook's own retention: by count when trimming, by age and count in the expiry; forwarding " +
      "webhooks' captures are owed a delivery",
    async () => {
      const u = await user();
      const own = await createWebhook(handle.db, u.id, 100, {
        retention: { max_requests: 2, max_age_days: 1 },
        forwardUrl: 'http://127.0.0.1:9/',
      });
      const plain = (await createWebhook(handle.db, u.id, 100))!;
      const stored = await insertCaptures(handle.db, [
        ...['1', '2', '3'].map((n) => capture(own!.webhookId, n)),
        capture(plain.webhookId, 'p1'),
        capture(plain.webhookId, 'p2'),
      ]);
      expect(stored.get(own!.webhookId)).toEqual({ ref: own!.id, added: 3, forwarding: true, keep: 2 });
      expect(stored.get(plain.webhookId)?.forwarding).toBe(false);
      const rows = await listCapturedRequests(handle.db, own!.id, 10);
      expect(rows.map((r) => r.delivery?.status)).toEqual(['pending', 'pending', 'pending']);
      expect((await listCapturedRequests(handle.db, plain.id, 10)).map((r) => r.delivery)).toEqual([null, null]);
      await trimCaptures(handle.db, [own!.id, plain.id], 1); // 1 is the default: the webhook's own 2 wins
      expect((await listCapturedRequests(handle.db, own!.id, 10)).map((r) => r.body)).toEqual(['3', '2']);
      expect((await listCapturedRequests(handle.db, plain.id, 10)).map((r) => r.body)).toEqual(['p2']);
      // Age: captures of two days ago go for the webhook that keeps one day, not for the default of 30;
      // by count, the webhook's own 2.
      await handle.db
        .updateTable('captured_requests')
        .set({ created_at: new Date(Date.now() - 2 * 86_400_000) })
        .where('webhook_ref', 'in', [own!.id, plain.id])
        .where('body', 'in', ['2', 'p2'])
        .execute();
      await insertCaptures(handle.db, [capture(own!.webhookId, '4'), capture(own!.webhookId, '5')]);
      // Its old pending delivery is a stalled one (the upkeep wakes the forwarder for it).
      expect(await hasStalledDeliveries(handle.db, 60)).toBe(true);
      const defaults = { max_requests: 500, max_age_days: 30 };
      const caps = { max_requests: 10_000, max_age_days: 30 };
      const deleted = await expireCaptures(
        handle.db,
        { free: defaults, pro: defaults, enterprise: defaults },
        { free: caps, pro: caps, enterprise: caps },
      );
      // '2' by age, '3' by count (other webhooks of the database may have had some too)
      expect(deleted).toBeGreaterThanOrEqual(2);
      expect((await listCapturedRequests(handle.db, own!.id, 10)).map((r) => r.body)).toEqual(['5', '4']);
      expect((await listCapturedRequests(handle.db, plain.id, 10)).map((r) => r.body)).toEqual(['p2']);
    },
  );

  it("finds deliveries owed from each webhook's floor, and raises the floor only past what is settled", async () => {
    const u = await user();
    const w = await forwardingWebhook(u.id);
    const floor = async () =>
      Number(
        (
          await handle.db
            .selectFrom('webhooks')
            .select('delivery_floor')
            .where('id', '=', w.id)
            .executeTakeFirstOrThrow()
        ).delivery_floor,
      );
    const due = async () =>
      (await findDueDeliveries(handle.db, [], 10, 10_000)).find((g) => g.webhookId === w.webhookId)?.ids ?? [];
    await insertCaptures(
      handle.db,
      ['1', '2', '3'].map((n) => capture(w.webhookId, n)),
    );
    const ids = await due();
    expect(ids).toHaveLength(3);
    const settled = (id: number) => delivered(w.id, id);
    await recordDeliveryAttempts(handle.db, [settled(ids[0]!), settled(ids[2]!)]);
    await raiseDeliveryFloors(handle.db, [w.id]);
    expect(await floor()).toBe(ids[1]! - 1); // the second is still owed: the floor stays below it
    expect(await due()).toEqual([ids[1]]);
    // A failed attempt: its retry does not hold the floor back, and is found when due.
    await recordDeliveryAttempts(handle.db, [
      { ...settled(ids[1]!), status: 'pending', nextAttemptAt: new Date(Date.now() - 1000).toISOString() },
    ]);
    await raiseDeliveryFloors(handle.db, [w.id]);
    expect(await floor()).toBe(ids[2]);
    expect(await due()).toEqual([ids[1]]);
    await recordDeliveryAttempts(handle.db, [settled(ids[1]!)]);
    expect(await due()).toEqual([]);
    await insertCaptures(handle.db, [capture(w.webhookId, '4')]);
    const [fourth] = await due();
    expect(fourth).toBeGreaterThan(ids[2]!);
    // Never lowered: with every capture gone, it stays.
    await handle.db.deleteFrom('captured_requests').where('webhook_ref', '=', w.id).execute();
    await raiseDeliveryFloors(handle.db, [w.id]);
    expect(await floor()).toBe(ids[2]);
  });

  it(
    'records attempts of several webhooks in one call, ' + 'each on its own capture, and raises their floors together',
    async () => {
      const u = await user();
      const [a, b] = [await forwardingWebhook(u.id), await forwardingWebhook(u.id)];
      await insertCaptures(handle.db, [
        capture(a.webhookId, 'a1'),
        capture(b.webhookId, 'b1'),
        capture(a.webhookId, 'a2'),
        capture(b.webhookId, 'b2'),
      ]);
      const idsOf = async (ref: number) => (await listCapturedRequests(handle.db, ref, 10)).map((r) => r.id).reverse();
      const [a1, a2] = await idsOf(a.id);
      const [b1, b2] = await idsOf(b.id);
      // b2 named with a's ref: not a's capture, so nothing happens to it.
      await recordDeliveryAttempts(handle.db, [
        delivered(a.id, a1!, 201),
        delivered(b.id, b1!, 202),
        delivered(a.id, b2!, 203),
        delivered(a.id, a2!, 204),
      ]);
      const statuses = async (ref: number) =>
        (await listCapturedRequests(handle.db, ref, 10))
          .reverse()
          .map((r) => [r.delivery?.status, r.delivery?.response_status]);
      expect(await statuses(a.id)).toEqual([
        ['success', 201],
        ['success', 204],
      ]);
      expect(await statuses(b.id)).toEqual([
        ['success', 202],
        ['pending', null],
      ]);
      await raiseDeliveryFloors(handle.db, [a.id, b.id]);
      const floors = await handle.db
        .selectFrom('webhooks')
        .select(['id', 'delivery_floor'])
        .where('id', 'in', [a.id, b.id])
        .orderBy('id')
        .execute();
      expect(floors.map((f) => Number(f.delivery_floor))).toEqual([a2!, b2! - 1]);
    },
  );

  // Only Postgres has a second session to hold a lock meanwhile (PGlite's clients take turns at its one session).
  if (kind === 'postgres')
    it(
      'raises the floors of the webhooks no capture batch holds, skipping the one a batch in flight holds, ' +
        'without waiting',
      async () => {
        const u = await user();
        const [a, b] = [await forwardingWebhook(u.id), await forwardingWebhook(u.id)];
        await insertCaptures(handle.db, [capture(a.webhookId, 'a1'), capture(b.webhookId, 'b1')]);
        const [a1] = (await listCapturedRequests(handle.db, a.id, 1)).map((r) => r.id);
        const [b1] = (await listCapturedRequests(handle.db, b.id, 1)).map((r) => r.id);
        await recordDeliveryAttempts(handle.db, [delivered(a.id, a1!), delivered(b.id, b1!)]);
        const floors = async () =>
          (
            await handle.db
              .selectFrom('webhooks')
              .select('delivery_floor')
              .where('id', 'in', [a.id, b.id])
              .orderBy('id')
              .execute()
          ).map((f) => Number(f.delivery_floor));
        // A capture batch in flight on a: its key-share lock on a's row (store_captures_v2), in a session of its own.
        const other = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', migrate: false });
        let release!: () => void;
        let holding!: () => void;
        const held = new Promise<void>((r) => (holding = r));
        const batch = other.db.transaction().execute(async (trx) => {
          await sql`select 1 from webhooks where id = ${a.id} for key share`.execute(trx);
          holding();
          await new Promise<void>((r) => (release = r));
        });
        await held;
        try {
          await raiseDeliveryFloors(handle.db, [a.id, b.id]);
          expect(await floors()).toEqual([0, b1]);
        } finally {
          release();
          await batch;
          await other.close();
        }
        await raiseDeliveryFloors(handle.db, [a.id, b.id]);
        expect(await floors()).toEqual([a1, b1]);
      },
    );

  it(
    'takes the forwarding webhooks whose oldest delivery owed is oldest, at most the number asked, skipping ' +
      'busy ones',
    async () => {
      const u = await user();
      const [a, b, c] = await Promise.all([0, 1, 2].map(() => forwardingWebhook(u.id)));
      // Their captures in a transaction rolled back at the end: a forwarder of the test apps sharing this database
      // never
      // sees them.
      await handle.db
        .transaction()
        .execute(async (trx) => {
          await insertCaptures(trx, [capture(b!.webhookId, 'b1')]);
          await insertCaptures(trx, [capture(a!.webhookId, 'a1'), capture(c!.webhookId, 'c1')]);
          await insertCaptures(
            trx,
            ['a2', 'a3', 'a4'].map((n) => capture(a!.webhookId, n)),
          );
          const ours = (groups: Awaited<ReturnType<typeof findDueDeliveries>>) =>
            groups.filter((g) => [a, b, c].some((w) => w!.webhookId === g.webhookId));
          const all = ours(await findDueDeliveries(trx, [], 2, 10_000));
          expect(all.map((g) => g.webhookId)).toEqual([b!.webhookId, a!.webhookId, c!.webhookId]);
          expect(all.map((g) => g.ids.length)).toEqual([1, 2, 1]); // at most 2 each, oldest first
          expect(ours(await findDueDeliveries(trx, [b!.webhookId], 2, 10_000)).map((g) => g.webhookId)).toEqual([
            a!.webhookId,
            c!.webhookId,
          ]);
          // A retry due counts as owed from its capture's place: b's only capture failed once, its retry is due.
          const [bFirst] = all[0]!.ids;
          await recordDeliveryAttempts(trx, [
            {
              ...delivered(b!.id, bFirst!, 500),
              status: 'pending',
              nextAttemptAt: new Date(Date.now() - 1000).toISOString(),
            },
          ]);
          expect(ours(await findDueDeliveries(trx, [], 2, 10_000)).map((g) => g.webhookId)).toEqual([
            b!.webhookId,
            a!.webhookId,
            c!.webhookId,
          ]);
          // Every forwarding webhook of the database counts toward `webhooks`: the first ones of the whole answer.
          const whole = await findDueDeliveries(trx, [], 2, 10_000);
          for (const n of [1, 2]) expect(await findDueDeliveries(trx, [], 2, n)).toEqual(whole.slice(0, n));
          expect(await findDueDeliveries(trx, [], 0, 10_000)).toEqual([]);
          throw new Error('roll back');
        })
        .catch((err: Error) => {
          if (err.message !== 'roll back') throw err;
        });
    },
  );

  it(
    'counts every capture ever stored, by any process, from the id sequence (what deliveries yield to on the ' +
      'embedded database)',
    async () => {
      const u = await user();
      const w = (await createWebhook(handle.db, u.id, 100))!;
      const before = await capturesEverStored(handle.db);
      await insertCaptures(
        handle.db,
        Array.from({ length: 25 }, (_, n) => capture(w.webhookId, String(n))),
      );
      expect(await capturesEverStored(handle.db)).toBe(before + 25);
    },
  );

  it('expires every webhook, however many (the expiry goes through them a few at a time)', async () => {
    const u = await upsertUser(handle.db, `db-${randomUUID()}@example.test`, 'enterprise');
    const hooks = await Promise.all(
      Array.from({ length: 60 }, () =>
        createWebhook(handle.db, u.id, 100, { retention: { max_requests: 1, max_age_days: 30 } }),
      ),
    );
    await insertCaptures(
      handle.db,
      hooks.flatMap((w) => [capture(w!.webhookId, 'old'), capture(w!.webhookId, 'new')]),
    );
    const keep = { max_requests: 500, max_age_days: 30 };
    expect(
      await expireCaptures(
        handle.db,
        { free: keep, pro: keep, enterprise: keep },
        { free: keep, pro: keep, enterprise: keep },
      ),
    ).toBeGreaterThanOrEqual(60);
    for (const w of hooks)
      expect((await listCapturedRequests(handle.db, w!.id, 10)).map((r) => r.body)).toEqual(['new']);
  });

  it('trims in the background once a webhook took `trimEvery` new rows', async () => {
    const u = await user();
    const w = await createWebhook(handle.db, u.id);
    const writer = new CaptureWriter(handle.db, { keepPerWebhook: 5, trimEvery: 4 });
    for (let i = 0; i < 3; i++) await writer.write(capture(w.webhookId, String(i)));
    await writer.drain();
    // Below the threshold: nothing trimmed yet, and nothing needed trimming.
    expect(await listCapturedRequests(handle.db, w.id, 100)).toHaveLength(3);
    await Promise.all(Array.from({ length: 9 }, (_, i) => writer.write(capture(w.webhookId, String(3 + i)))));
    await writer.drain();
    const rows = await listCapturedRequests(handle.db, w.id, 100);
    expect(rows.length).toBeLessThanOrEqual(5 + 4);
    expect(
      rows
        .slice(0, 5)
        .map((r) => Number(r.body))
        .sort((x, y) => x - y),
    ).toEqual([7, 8, 9, 10, 11]);
  });

  it('group-commits concurrent captures and answers each one', async () => {
    const u = await user();
    const w = await createWebhook(handle.db, u.id);
    let batches = 0;
    const counted = watchStatements(handle.db, (node) => {
      if (JSON.stringify(node).includes('store_captures')) batches += 1;
    });
    const writer = new CaptureWriter(counted, { keepPerWebhook: 1000 });
    const results = await Promise.all([
      ...Array.from({ length: 200 }, (_, i) => writer.write(capture(w.webhookId, String(i)))),
      writer.write(capture('no-such-webhook', 'x')),
    ]);
    expect(results.slice(0, 200).every(Boolean)).toBe(true);
    expect(results[200]).toBe(false);
    expect(batches).toBe(1); // submitted in one turn: one statement
    await writer.drain();
    expect(await listCapturedRequests(handle.db, w.id, 1000)).toHaveLength(200);
  });

  it('answers a committed capture as stored even when telling of it fails', async () => {
    const u = await user();
    const w = await createWebhook(handle.db, u.id);
    const errors: unknown[] = [];
    const writer = new CaptureWriter(handle.db, {
      keepPerWebhook: 1000,
      onStored: () => {
        throw new Error('a live stream broke');
      },
      onError: (err) => errors.push(err),
    });
    expect(await writer.write(capture(w.webhookId, 'kept'))).toBe(true);
    expect(String(errors[0])).toBe('Error: a live stream broke');
    expect((await listCapturedRequests(handle.db, w.id, 10)).map((r) => r.body)).toEqual(['kept']);
  });

  it('splits batches by body bytes, and still stores every capture', async () => {
    const u = await user();
    const w = await createWebhook(handle.db, u.id);
    let batches = 0;
    const counted = watchStatements(handle.db, (node) => {
      if (JSON.stringify(node).includes('store_captures')) batches += 1;
    });
    const writer = new CaptureWriter(counted, { keepPerWebhook: 1000, maxBatchBytes: 25, maxConcurrent: 1 });
    const bodies = Array.from({ length: 30 }, (_, i) => `body-${String(i).padStart(4, '0')}`); // 9 bytes each
    expect((await Promise.all(bodies.map((b) => writer.write(capture(w.webhookId, b))))).every(Boolean)).toBe(true);
    await writer.drain();
    // 25 bytes take two 9-byte bodies: 30 captures submitted together, 15 statements (one without the cap).
    expect(batches).toBe(15);
    expect((await listCapturedRequests(handle.db, w.id, 1000)).map((r) => r.body).sort()).toEqual(bodies);
  });

  it('deletes the captured requests with their webhook', async () => {
    const u = await user();
    const w = await createWebhook(handle.db, u.id);
    await insertCaptures(handle.db, [capture(w.webhookId, 'x')]);
    expect(await deleteOwnedWebhook(handle.db, u.id + 1_000_000, w.webhookId)).toBe(false);
    expect(await deleteOwnedWebhook(handle.db, u.id, w.webhookId)).toBe(true);
    const left = await handle.db.selectFrom('captured_requests').select('id').where('webhook_ref', '=', w.id).execute();
    expect(left).toEqual([]);
  });

  it(
    "has one capture write (no earlier release's functions), and a webhook's captures go with it however it " +
      'is deleted',
    async () => {
      const functions = await sql<{
        proname: string;
      }>`select proname from pg_proc where proname like '%captures%' order by proname`.execute(handle.db);
      expect(functions.rows.map((r) => r.proname)).toEqual(['delete_webhook_captures', 'store_captures_v2']);
      const u = await user();
      const w = await createWebhook(handle.db, u.id);
      await insertCaptures(handle.db, [capture(w.webhookId, 'kept')]);
      expect((await listCapturedRequests(handle.db, w.id, 10)).map((r) => r.body)).toEqual(['kept']);
      await sql`delete from users where id = ${u.id}`.execute(handle.db); // cascades to the webhook, then the trigger
      expect(
        await handle.db.selectFrom('captured_requests').select('id').where('webhook_ref', '=', w.id).execute(),
      ).toEqual([]);
    },
  );

  it('deletes the captures of a batch that was still open when the webhook was deleted', async () => {
    const u = await user();
    const w = await createWebhook(handle.db, u.id);
    let deleted: Promise<boolean> | undefined;
    let settled = false;
    await handle.db.transaction().execute(async (trx) => {
      expect((await insertCaptures(trx, [capture(w.webhookId, 'in flight')])).get(w.webhookId)).toEqual({
        ref: w.id,
        added: 1,
        forwarding: false,
        keep: null,
      });
      deleted = deleteOwnedWebhook(handle.db, u.id, w.webhookId);
      deleted.then(
        () => (settled = true),
        () => (settled = true),
      );
      await new Promise((r) => setTimeout(r, 300));
      // The delete waits for the batch, which holds a lock on the webhook's row.
      expect(settled).toBe(false);
    });
    expect(await deleted).toBe(true);
    expect(
      await handle.db.selectFrom('captured_requests').select('id').where('webhook_ref', '=', w.id).execute(),
    ).toEqual([]);
    expect((await insertCaptures(handle.db, [capture(w.webhookId, 'too late')])).size).toBe(0);
  });
});
