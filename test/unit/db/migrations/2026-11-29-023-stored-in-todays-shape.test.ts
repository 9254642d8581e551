// Migration 2026-11-29-023 on rows in the shapes stored before it (PGlite, migrated to the one before,
// the old rows inserted, then migrated to the latest): a shard's phases kept in its snapshot move to
// their column, a capture without its query as sent gets it rebuilt from its pairs, the pairs and a
// replay's sequence become json, all read back through today's readers, nothing lost; undone and done
// again, the same.
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../../../db/connect.ts';
import { insertCaptures, listCapturedRequests } from '../../../../db/webhooks/captured-requests.ts';
import { readShardSnapshots } from '../../../../db/load/load-test-shards.ts';
import { createLoadTest, readReplayRequests } from '../../../../db/load/load-tests.ts';
import { migrationProvider } from '../../../../db/migrations/index.ts';
import { upsertUser } from '../../../../db/users.ts';
import { createWebhook } from '../../../../db/webhooks/webhooks.ts';
import { shardSnapshot } from '../../../support/snapshots.ts';
import { loadTestConfig } from '../../../support/load-config.ts';
import { tempDir } from '../../../support/processes.ts';

const BEFORE = '2026-11-28-022-load-shard-sent';

let database: DatabaseHandle;
let migrator: Migrator;
let userId: number;

beforeAll(async () => {
  database = await openDatabase({ databaseUrl: undefined, dataDir: await tempDir('todays-shape-db') });
  migrator = new Migrator({ db: database.db, provider: migrationProvider });
  userId = (await upsertUser(database.db, 'todays-shape@example.test', 'free')).id;
});
afterAll(async () => {
  await database?.close();
});

const phases = Object.fromEntries(['dns', 'connect', 'tls', 'ttfb', 'transfer'].map((p) => [p, `h-${p}`]));
/** A query's pairs in an order jsonb would not keep. */
const PAIRS = { tag: ['x', 'y&z'], q: 'a b' };
const replay = [
  // Headers in an order jsonb would not keep (it puts shorter keys first).
  { at: 0, method: 'POST', path: '/a?x=1', headers: { 'content-type': 'text/plain', 'x-b': '1' }, body: 'aGk=' },
  { at: 250, method: 'GET', path: '/b', headers: {} },
];

/** A test with a shard whose phases are in its snapshot, and its replay's sequence as text. */
async function oldLoadTest(): Promise<string> {
  const id = `t${Math.random().toString(36).slice(2, 12)}`;
  expect(await createLoadTest(database.db, { id, userId, config: loadTestConfig('http://127.0.0.1:9/') })).toBe(true);
  const snapshot = JSON.stringify({ ...shardSnapshot([2]), sending: null, phases });
  await sql`insert into load_test_shards (test_id, shard, attempt, snapshot, final)
    values (${id}, 0, 1, ${snapshot}::jsonb, true)`.execute(database.db);
  await sql`insert into load_test_replays (test_id, requests) values (${id}, ${JSON.stringify(replay)})`.execute(
    database.db,
  );
  return id;
}

/** Captures as stored before: the query's pairs as text, no query as sent (one had no query at all). */
async function oldCaptures(webhookRef: number): Promise<void> {
  const params = [JSON.stringify(PAIRS), null];
  for (const query of params)
    await sql`insert into captured_requests
      (webhook_ref, method, path, headers, body, body_encoding, body_size, query_params, ip_address, user_agent)
      values (${webhookRef}, 'GET', '/', '{}'::jsonb, null, 'utf8', 0, ${query}, '127.0.0.1', 'test')`.execute(
      database.db,
    );
}

describe('migration 2026-11-29-023: rows stored before in today’s shape', () => {
  it('rewrites them, and today’s readers read them, nothing lost', async () => {
    expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
    const webhook = await createWebhook(database.db, userId);
    const testId = await oldLoadTest();
    await oldCaptures(webhook.id);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();

    const stored = await database.db
      .selectFrom('load_test_shards')
      .select(['snapshot', 'phases'])
      .where('test_id', '=', testId)
      .executeTakeFirstOrThrow();
    expect(stored.phases).toEqual(phases); // in their column now
    expect(stored.snapshot).not.toHaveProperty('phases');
    const [row] = await readShardSnapshots(database.db, testId);
    expect(row!.snapshot).toMatchObject({ total: 1, phases });

    expect(JSON.stringify(await readReplayRequests(database.db, testId))).toBe(JSON.stringify(replay));

    const [none, some] = await listCapturedRequests(database.db, webhook.id, 10);
    // Rebuilt as the readers did (a space as `+`), the pairs as they were written, in their order.
    expect(some).toMatchObject({ queryString: 'tag=x&tag=y%26z&q=a+b', queryParams: JSON.stringify(PAIRS) });
    expect(none).toMatchObject({ queryString: null, queryParams: null });
    const types = await sql<{ column_name: string; data_type: string }>`
      select column_name, data_type from information_schema.columns
      where (table_name, column_name) in (('captured_requests', 'query_params'), ('load_test_replays', 'requests'))
      order by column_name`.execute(database.db);
    expect(types.rows.map((r) => r.data_type)).toEqual(['json', 'json']);
  });

  it('stores new captures with their pairs as json, and undone, gives the text back', async () => {
    const webhook = await createWebhook(database.db, userId);
    const capture = {
      webhookId: webhook.webhookId,
      method: 'GET',
      path: '/p',
      headers: {},
      body: null,
      bodyEncoding: 'utf8' as const,
      bodySize: 0,
      queryParams: JSON.stringify({ a: '1', b: ['2', '3'] }),
      queryString: 'b=2&a=1&b=3',
      ipAddress: '127.0.0.1',
      userAgent: 'test',
      createdAt: new Date(),
    };
    await insertCaptures(database.db, [capture]);
    const [read] = await listCapturedRequests(database.db, webhook.id, 1);
    expect(read).toMatchObject({ queryString: 'b=2&a=1&b=3' });
    expect(JSON.parse(read!.queryParams!)).toEqual({ a: '1', b: ['2', '3'] });

    const testId = await oldLoadTest();
    expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
    const back = await sql<{ query_params: string }>`
      select query_params from captured_requests where webhook_ref = ${webhook.id}`.execute(database.db);
    expect(typeof back.rows[0]!.query_params).toBe('string');
    expect(JSON.parse(back.rows[0]!.query_params)).toEqual({ a: '1', b: ['2', '3'] });
    // The function of the migration before stores text again.
    await insertCaptures(database.db, [{ ...capture, path: '/again' }]);
    const replays = await sql<{ requests: string }>`
      select requests from load_test_replays where test_id = ${testId}`.execute(database.db);
    expect(JSON.parse(replays.rows[0]!.requests)).toEqual(replay);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await listCapturedRequests(database.db, webhook.id, 10)).toHaveLength(2);
    expect(await readReplayRequests(database.db, testId)).toEqual(replay);
  });
});
