// Captures kept as sent and as answered (migration 2026-11-28-021), both databases held to the same
// behaviour: PGlite always, Postgres when DATABASE_URL is set. The query string is stored byte for
// byte beside its parsed pairs, with the status the capture was answered with; a batch of the release
// before (without them) stores null, and its query is rebuilt from the pairs when read. The migration
// goes down to the capture write of migration 020 and up again, on a database of its own.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/connect.ts';
import { migrationProvider } from '../../db/migrations/index.ts';
import { upsertUser } from '../../db/users.ts';
import { createWebhook, insertCaptures, listCapturedRequests, type CaptureRecord } from '../../db/webhooks/webhooks.ts';
import { captureRecord, contractDatabases, useDatabase } from '../support/databases.ts';
import { tempDir } from '../support/processes.ts';

const MIGRATION = '2026-11-28-021-captures-as-sent-and-answered';
const RAW = 'q=%20space&empty=&b=2&a=1&b=1';
const PARSED = JSON.stringify({ q: ' space', empty: '', b: ['2', '1'], a: '1' });

const databases = contractDatabases('pglite-as-sent');

const capture = (webhookId: string, over: Partial<CaptureRecord> = {}): CaptureRecord =>
  captureRecord(webhookId, '{}', { path: `/webhook/${webhookId}/orders`, queryParams: PARSED, ...over });

/** A batch as the release before sent it to store_captures_v2: no query_string, no answered_status. */
const batchOfTheReleaseBefore = (webhookId: string) =>
  JSON.stringify([
    {
      ord: 0,
      webhook_id: webhookId,
      method: 'GET',
      path: `/webhook/${webhookId}`,
      headers: {},
      body: null,
      body_encoding: 'utf8',
      body_size: 0,
      query_params: PARSED,
      ip_address: '127.0.0.1',
      user_agent: 'old',
      created_at: new Date().toISOString(),
      matched_rule: null,
    },
  ]);

const answerColumns = ['webhook_id', 'webhook_ref', 'forwarding', 'keep', 'owner_id', 'checked'];

describe.each(databases)('captures as sent and as answered (%s)', (_kind, open) => {
  const handle = useDatabase(open);
  const webhook = async () => {
    const u = await upsertUser(handle.db, `as-sent-${randomUUID()}@example.test`, 'free');
    return createWebhook(handle.db, u.id);
  };

  it('keeps the query byte for byte beside its pairs, and the status each capture was answered with', async () => {
    const w = await webhook();
    await insertCaptures(handle.db, [
      capture(w.webhookId, { queryString: RAW, answeredStatus: 409, matchedRule: 0 }),
      capture(w.webhookId, { queryParams: null, queryString: null, answeredStatus: 200 }),
      capture(w.webhookId, { queryParams: null, queryString: '', answeredStatus: 202 }), // a bare `?`
    ]);
    const rows = (await listCapturedRequests(handle.db, w.id, 10)).toReversed();
    expect(rows.map((r) => [r.queryString, r.queryParams, r.answeredStatus, r.matchedRule])).toEqual([
      [RAW, PARSED, 409, 0],
      [null, null, 200, null],
      ['', null, 202, null],
    ]);
    const stored = await sql<{ query_string: string | null; answered_status: number | null }>`
      select query_string, answered_status from captured_requests where webhook_ref = ${w.id} order by id`.execute(
      handle.db,
    );
    expect(stored.rows).toEqual([
      { query_string: RAW, answered_status: 409 },
      { query_string: null, answered_status: 200 },
      { query_string: '', answered_status: 202 },
    ]);
  });

  it("stores null for a batch of the release before, keeps migration 020's answer, rebuilds the query", async () => {
    const w = await webhook();
    const answered = await sql<Record<string, unknown>>`
      select * from store_captures_v2(${batchOfTheReleaseBefore(w.webhookId)}::json)`.execute(handle.db);
    expect(Object.keys(answered.rows[0]!)).toEqual(answerColumns);
    const [row] = await listCapturedRequests(handle.db, w.id, 1);
    // Rebuilt from the pairs: a space reads `+`, a repeated name's values together.
    expect(row).toMatchObject({
      queryString: 'q=+space&empty=&b=2&b=1&a=1',
      queryParams: PARSED,
      answeredStatus: null,
    });
    const stored =
      await sql`select query_string, answered_status from captured_requests where webhook_ref = ${w.id}`.execute(
        handle.db,
      );
    expect(stored.rows).toEqual([{ query_string: null, answered_status: null }]);
  });
});

/** A database of its own for the migration to go down and up on (never the one other suites use). */
async function freshDatabase(kind: string): Promise<{ handle: DatabaseHandle; drop(): Promise<void> }> {
  if (kind === 'pglite') {
    const handle = await openDatabase({ databaseUrl: undefined, dataDir: await tempDir('pglite-as-sent-down') });
    return { handle, drop: () => handle.close() };
  }
  const name = `netops_as_sent_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.href, dataDir: '' });
  return {
    handle,
    async drop() {
      await handle.close();
      await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    },
  };
}

describe.each(databases.map(([kind]) => [kind]))('the migration %s, down and up again', (kind) => {
  it('goes down to the capture write before it, keeps what was stored, and up again', async () => {
    const { handle, drop } = await freshDatabase(kind);
    const { db } = handle;
    try {
      const u = await upsertUser(db, `down-${randomUUID()}@example.test`, 'free');
      const w = await createWebhook(db, u.id);
      await insertCaptures(db, [capture(w.webhookId, { queryString: RAW, answeredStatus: 401 })]);
      const columns = async () =>
        (
          await sql<{ column_name: string }>`
            select column_name from information_schema.columns
            where table_name = 'captured_requests' and column_name in ('query_string', 'answered_status')
            order by column_name`.execute(db)
        ).rows.map((r) => r.column_name);
      expect(await columns()).toEqual(['answered_status', 'query_string']);

      const migrator = new Migrator({ db, provider: migrationProvider });
      // Down to the one before it (the ones after it first).
      const down = await migrator.migrateTo('2026-11-28-020-capture-schema-checks');
      expect(down.error).toBeUndefined();
      expect(down.results?.map((r) => r.migrationName).at(-1)).toEqual(MIGRATION);
      expect(await columns()).toEqual([]);
      // Migration 020's capture write: its answer, and a batch that carries the new fields stores the rest.
      const batch = JSON.stringify([{ ...JSON.parse(batchOfTheReleaseBefore(w.webhookId))[0], query_string: RAW }]);
      const answered = await sql<Record<string, unknown>>`select * from store_captures_v2(${batch}::json)`.execute(db);
      expect(Object.keys(answered.rows[0]!)).toEqual(answerColumns);
      expect((await sql<{ n: string }>`select count(*) as n from captured_requests`.execute(db)).rows[0]!.n).toBe('2');

      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      expect(up.results?.map((r) => r.migrationName)[0]).toEqual(MIGRATION);
      expect(await columns()).toEqual(['answered_status', 'query_string']);
      await insertCaptures(db, [capture(w.webhookId, { queryString: RAW, answeredStatus: 202 })]);
      const rows = await listCapturedRequests(db, w.id, 10);
      // The rows stored before (or while down) have the query rebuilt and no status; the new one both.
      expect(rows.map((r) => [r.queryString, r.answeredStatus])).toEqual([
        [RAW, 202],
        ['q=+space&empty=&b=2&b=1&a=1', null],
        ['q=+space&empty=&b=2&b=1&a=1', null],
      ]);
    } finally {
      await drop();
    }
  });
});
