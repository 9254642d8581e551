// Captures' JSON Schema verdicts in the database (migration 2026-11-28-020), both databases held to
// the same behaviour: PGlite always, Postgres when DATABASE_URL is set. A batch stored for a webhook
// with a schema names the captures to check (and the owner); verdicts are written a batch at a time
// and read back with the captures, and by the search's list of ids.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { describe, expect, it } from 'vitest';
import { storeSchemaChecks, webhookSchemaOf } from '../../db/webhooks/capture-schema-checks.ts';
import { CaptureWriter, type CapturesToCheck } from '../../db/webhooks/capture-writer.ts';
import { listCaptureVerdicts } from '../../db/webhooks/captured-requests.ts';
import { openDatabase } from '../../db/connect.ts';
import { migrationProvider } from '../../db/migrations/index.ts';
import { upsertUser } from '../../db/users.ts';
import { createWebhook, insertCaptures, listCapturedRequests } from '../../db/webhooks/webhooks.ts';
import { captureRecord as capture, contractDatabases, useDatabase } from '../support/databases.ts';
import { tempDir } from '../support/processes.ts';

const databases = contractDatabases('pglite-schema-checks');

describe.each(databases)('capture schema checks in the database (%s)', (_kind, open) => {
  const handle = useDatabase(open);
  const user = () => upsertUser(handle.db, `schema-${randomUUID()}@example.test`, 'free');

  it('names the captures of a batch to check, for webhooks with a schema only, with their owner', async () => {
    const u = await user();
    const checked = (await createWebhook(handle.db, u.id, 100, { schema: { type: 'object' } }))!;
    const plain = await createWebhook(handle.db, u.id);
    const stored = await insertCaptures(handle.db, [
      capture(checked.webhookId, '{"a":1}'),
      capture(plain.webhookId, 'x'),
      capture(checked.webhookId, '[]'),
    ]);
    const ids = (await listCapturedRequests(handle.db, checked.id, 10)).map((r) => r.id).reverse();
    expect(ids).toHaveLength(2);
    expect(stored.get(checked.webhookId)).toEqual({
      ref: checked.id,
      added: 2,
      forwarding: false,
      keep: null,
      check: { owner: u.id, ids },
    });
    expect(stored.get(plain.webhookId)).toEqual({ ref: plain.id, added: 1, forwarding: false, keep: null });
    expect(stored.get(plain.webhookId)).not.toHaveProperty('check');
    expect(await webhookSchemaOf(handle.db, checked.id)).toEqual({ type: 'object' });
    expect(await webhookSchemaOf(handle.db, plain.id)).toBeNull();

    // The writer hands them on after the batch is committed.
    const told: CapturesToCheck[] = [];
    const writer = new CaptureWriter(handle.db, { keepPerWebhook: 100, onToCheck: (c) => told.push(...c) });
    expect(await writer.write(capture(checked.webhookId, '{}'))).toBe(true);
    expect(await writer.write(capture(plain.webhookId, '{}'))).toBe(true);
    await writer.drain();
    const newest = (await listCapturedRequests(handle.db, checked.id, 1))[0]!.id;
    expect(told).toEqual([{ ref: checked.id, owner: u.id, ids: [newest] }]);
  });

  it('keeps each verdict with the hash of its schema, read with the capture and by the search', async () => {
    const u = await user();
    const w = (await createWebhook(handle.db, u.id, 100, { schema: { type: 'object' } }))!;
    await insertCaptures(handle.db, [
      capture(w.webhookId, '{}'),
      capture(w.webhookId, '[]'),
      capture(w.webhookId, '7'),
    ]);
    const [c3, c2, c1] = (await listCapturedRequests(handle.db, w.id, 10)).map((r) => r.id) as [number, number, number];
    expect((await listCapturedRequests(handle.db, w.id, 10)).map((r) => r.schemaCheck)).toEqual([null, null, null]);
    const invalid = { hash: 'h1', valid: false, errors: [{ path: '', message: 'must be object' }] };
    const tooLong = { hash: 'h1', valid: null, errors: [], error: 'check took too long' };
    await storeSchemaChecks(handle.db, [
      { id: c1, check: { hash: 'h1', valid: true, errors: [] } },
      { id: c2, check: invalid },
      { id: c3, check: tooLong },
      { id: c3 + 1_000_000, check: invalid }, // no such capture: skipped
    ]);
    expect((await listCapturedRequests(handle.db, w.id, 10)).map((r) => r.schemaCheck)).toEqual([
      tooLong,
      invalid,
      { hash: 'h1', valid: true, errors: [] },
    ]);
    expect(await listCaptureVerdicts(handle.db, w.id, {})).toEqual([
      { id: c3, hash: 'h1', valid: null },
      { id: c2, hash: 'h1', valid: false },
      { id: c1, hash: 'h1', valid: true },
    ]);
    // Checked again against another schema: the newer verdict replaces the older.
    await storeSchemaChecks(handle.db, [{ id: c2, check: { hash: 'h2', valid: true, errors: [] } }]);
    expect(await listCaptureVerdicts(handle.db, w.id, { ids: [c2] })).toEqual([{ id: c2, hash: 'h2', valid: true }]);
  });
});

// Down and up again on a database of its own (never the shared Postgres other suites use).
describe('capture schema checks migration (pglite)', () => {
  it('migrates down to the capture write before it, and up again', async () => {
    const fresh = await openDatabase({ databaseUrl: undefined, dataDir: await tempDir('pglite-schema-down') });
    try {
      const migrator = new Migrator({ db: fresh.db, provider: migrationProvider });
      // Down past the migrations after it too (021 rebuilds the capture write on top of this one's).
      const down = await migrator.migrateTo('2026-11-27-019-load-shard-phases');
      expect(down.error).toBeUndefined();
      // The last two undone (the ones after them first).
      expect(down.results?.map((r) => r.migrationName).slice(-2)).toEqual([
        '2026-11-28-021-captures-as-sent-and-answered',
        '2026-11-28-020-capture-schema-checks',
      ]);
      const columns = () =>
        sql<{ column_name: string }>`
          select column_name from information_schema.columns
          where table_name = 'captured_requests' and column_name = 'schema_check'`.execute(fresh.db);
      expect((await columns()).rows).toEqual([]);
      const u = await upsertUser(fresh.db, `down-${randomUUID()}@example.test`, 'free');
      const w = await createWebhook(fresh.db, u.id);
      const { createdAt, webhookId, bodyEncoding, bodySize, queryParams, ipAddress, userAgent, ...rest } = capture(
        w.webhookId,
        '{}',
      );
      const batch = JSON.stringify([
        {
          ...rest,
          ord: 0,
          webhook_id: webhookId,
          body_encoding: bodyEncoding,
          body_size: bodySize,
          query_params: queryParams,
          ip_address: ipAddress,
          user_agent: userAgent,
          created_at: createdAt.toISOString(),
        },
      ]);
      const before = await sql<Record<string, unknown>>`select * from store_captures_v2(${batch}::json)`.execute(
        fresh.db,
      );
      expect(Object.keys(before.rows[0]!)).toEqual(['webhook_id', 'webhook_ref', 'forwarding', 'keep']);
      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      expect((await columns()).rows).toEqual([{ column_name: 'schema_check' }]);
      expect((await insertCaptures(fresh.db, [capture(w.webhookId, '{}')])).get(w.webhookId)?.added).toBe(1);
    } finally {
      await fresh.close();
    }
  });
});
