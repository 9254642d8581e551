// Captures' JSON Schema verdicts (api/services/webhooks/webhook-schema-checks.ts) on an embedded database:
// computed once, after the capture is stored, and kept with the schema's hash (a listing reads them,
// checking nothing again); a changed schema re-checked when read (past the owner's queue bound as room
// comes) and kept again; a check past its
// budget a kept verdict `check took too long`, the capture kept; a read waits for checks at most its
// bound; one owner's flood of slow checks neither starves another owner's checks nor holds more
// than its queue (the rest `not checked: the checker is busy` until read again).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUSY, STILL_RUNNING, schemaChecks } from '../../../../../api/services/webhooks/webhook-schema-checks.ts';
import { webhookRequestService } from '../../../../../api/services/webhooks/webhook-requests.ts';
import { CaptureWriter } from '../../../../../db/webhooks/capture-writer.ts';
import { openDatabase, type DatabaseHandle } from '../../../../../db/connect.ts';
import { upsertUser } from '../../../../../db/users.ts';
import { createWebhook, listCapturedRequests, setWebhookSettings } from '../../../../../db/webhooks/webhooks.ts';
import {
  type CheckJob,
  SchemaCheckPool,
  type SchemaCheckPoolOptions,
  TOO_LONG,
} from '../../../../../lib/json-schema/json-schema-pool.ts';
import { captureRecord as capture } from '../../../../support/databases.ts';
import { tempDir } from '../../../../support/processes.ts';

let database: DatabaseHandle;
const closing: Array<() => Promise<void>> = [];
beforeAll(async () => {
  database = await openDatabase({ databaseUrl: undefined, dataDir: await tempDir('schema-checks-service') });
});
afterAll(async () => {
  await Promise.all(closing.map((c) => c()));
  await database?.close();
});

/** A pool that counts the checks it was given, and names the owner of each one it finished, in order. */
class CountingPool extends SchemaCheckPool {
  submitted = 0;
  readonly finished: string[] = [];
  override submit(owner: string, job: CheckJob) {
    this.submitted += 1;
    const verdict = super.submit(owner, job);
    verdict?.then(
      () => this.finished.push(owner),
      () => {},
    );
    return verdict;
  }
}

/** The service with its own checker, and a capture writer that hands it what it stores. */
function setup(options: SchemaCheckPoolOptions = {}, readWaitMs = 500, coldStartMs = 0) {
  // At the process's own priority: a loaded test machine gives a lowered thread too little CPU to judge.
  const pool = new CountingPool({ nice: 0, ...options });
  const checks = schemaChecks({ db: database.db, pool, readWaitMs, coldStartMs });
  const writer = new CaptureWriter(database.db, { keepPerWebhook: 100, onToCheck: (c) => checks.afterStored(c) });
  closing.push(() => checks.close());
  return { pool, writer, views: webhookRequestService({ db: database.db, checks }) };
}

async function owner(schema: Record<string, unknown>) {
  const user = await upsertUser(database.db, `checks-${randomUUID()}@example.test`, 'free');
  const webhook = (await createWebhook(database.db, user.id, 10, { schema }))!;
  return { userId: user.id, ref: webhook.id, webhookId: webhook.webhookId };
}

/** The kept verdicts of a webhook's captures, newest first, once every one has one not of `stale` (or after 15 s). */
async function keptVerdicts(ref: number, count = 1, stale?: string) {
  for (let i = 0; ; i++) {
    const rows = await listCapturedRequests(database.db, ref, 100);
    const done = rows.length >= count && rows.every((r) => r.schemaCheck && r.schemaCheck.hash !== stale);
    if (done || i === 150) return rows.map((r) => r.schemaCheck);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const anyOf600 = { type: 'array', items: { anyOf: Array.from({ length: 600 }, (_, i) => ({ const: `v${i}` })) } };
/** Seconds of checking, far past a budget: 20,000 items that each match only the last of 600 branches. */
const slowBody = JSON.stringify(Array.from({ length: 20_000 }, () => 'v599'));

describe('webhook schema checks', () => {
  it('checks each capture once, after it is stored, and lists and filters by the kept verdicts', async () => {
    // A generous wait for checks (a loaded machine): what is tested here is what is checked, and when.
    const { pool, writer, views } = setup({}, 10_000);
    const w = await owner({ type: 'object', required: ['id'] });
    expect(await writer.write(capture(w.webhookId, '{"id":1}'))).toBe(true);
    expect(await writer.write(capture(w.webhookId, '{}'))).toBe(true);
    const kept = await keptVerdicts(w.ref, 2);
    expect(kept).toEqual([
      { hash: expect.any(String), valid: false, errors: [{ path: '/id', message: 'is required' }] },
      { hash: kept[0]!.hash, valid: true, errors: [] },
    ]);
    expect(pool.submitted).toBe(2);
    const listed = await views.requests(w.userId, w.webhookId);
    expect(listed.requests.map((r) => r.schema)).toEqual([
      { valid: false, errors: [{ path: '/id', message: 'is required' }] },
      { valid: true, errors: [] },
    ]);
    const invalid = await views.search(w.userId, w.webhookId, { filter: {}, limit: 10, schema: 'invalid' });
    expect([invalid.total, invalid.requests[0]!.id]).toEqual([1, listed.requests[0]!.id]);
    expect(pool.submitted).toBe(2); // nothing checked again

    // The schema changed: each capture is checked again when read (here by the search), and that verdict kept.
    await setWebhookSettings(database.db, w.userId, w.webhookId, { schema: { type: 'object', maxProperties: 0 } });
    const valid = await views.search(w.userId, w.webhookId, { filter: {}, limit: 10, schema: 'valid' });
    expect(valid.requests.map((r) => r.id)).toEqual([listed.requests[0]!.id]);
    expect(valid.requests[0]!.schema).toEqual({ valid: true, errors: [] });
    expect(pool.submitted).toBe(4);
    const again = await keptVerdicts(w.ref, 2, kept[0]!.hash);
    expect(again.map((v) => v?.valid)).toEqual([true, false]);
    expect(again[0]!.hash).not.toBe(kept[0]!.hash);
    expect((await views.requests(w.userId, w.webhookId)).requests.map((r) => r.schema?.valid)).toEqual([true, false]);
    expect(pool.submitted).toBe(4);
  });

  it('waits longer for verdicts when the checker has no thread started (after a quiet spell)', async () => {
    // A read's own wait (100 ms) is shorter than a thread's start: the cold start's allowance covers it.
    const { pool, writer, views } = setup({}, 100, 10_000);
    expect(pool.warm).toBe(false);
    const w = await owner({ type: 'object', required: ['id'] });
    expect(await writer.write(capture(w.webhookId, '{}'))).toBe(true);
    const read = await views.requests(w.userId, w.webhookId);
    expect(read.requests[0]!.schema).toEqual({ valid: false, errors: [{ path: '/id', message: 'is required' }] });
    expect(pool.warm).toBe(true);
  });

  it("checks a read's captures past the owner's queue bound as room comes, within the read's wait", async () => {
    const { pool, writer, views } = setup({ threads: 1, maxQueuedPerOwner: 2 }, 10_000);
    const w = await owner({ type: 'object' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => writer.write(capture(w.webhookId, `{"n":${i}}`))));
    await writer.drain();
    await setWebhookSettings(database.db, w.userId, w.webhookId, { schema: { type: 'object', required: ['n'] } });
    const before = pool.submitted;
    // One read: 20 captures to check again, 2 at a time in the owner's queue; none left unchecked.
    const read = await views.requests(w.userId, w.webhookId);
    expect(read.requests.map((r) => r.schema)).toEqual(Array.from({ length: 20 }, () => ({ valid: true, errors: [] })));
    expect(pool.submitted - before).toBeGreaterThanOrEqual(20);
  });

  it(
    'keeps `check took too long` for a check past its budget, ' + 'the capture kept; a read waits at most its bound',
    async () => {
      const { writer, views } = setup({ budgetMs: 300 }, 100);
      const w = await owner(anyOf600);
      expect(await writer.write(capture(w.webhookId, slowBody))).toBe(true);
      // Read while the check runs: answered within the read's wait, the check still running.
      const started = performance.now();
      const during = await views.requests(w.userId, w.webhookId);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect([STILL_RUNNING, TOO_LONG]).toContain(during.requests[0]!.schema?.error);
      expect(await keptVerdicts(w.ref)).toEqual([
        { hash: expect.any(String), valid: null, errors: [], error: TOO_LONG },
      ]);
      const after = await views.requests(w.userId, w.webhookId);
      expect(after.requests[0]).toMatchObject({ body: slowBody, schema: { valid: null, errors: [], error: TOO_LONG } });
    },
  );

  it(
    "serves another owner's checks during one owner's " + "flood of slow ones, holding at most that owner's queue",
    async () => {
      const { pool, writer, views } = setup({ threads: 1, budgetMs: 300, maxQueuedPerOwner: 2 }, 100);
      const flood = await owner(anyOf600);
      const other = await owner({ type: 'object' });
      await Promise.all(Array.from({ length: 10 }, () => writer.write(capture(flood.webhookId, slowBody))));
      expect(await writer.write(capture(other.webhookId, '{}'))).toBe(true);
      // The other owner's check waits at most for the flood's checks that its queue held (2), not for ten (that
      // owners are served in turn is the pool's, test/unit/lib/threads/thread-pool.test.ts).
      expect(await keptVerdicts(other.ref)).toEqual([{ hash: expect.any(String), valid: true, errors: [] }]);
      const before = pool.finished.slice(0, pool.finished.indexOf(String(other.userId)));
      expect(pool.finished).toContain(String(other.userId));
      expect(before.filter((o) => o === String(flood.userId)).length).toBeLessThanOrEqual(2);
      // The flood's owner: its queue held what it could; the rest is checked when read, as room comes.
      expect(pool.stats().queued).toBeLessThanOrEqual(2);
      const read = await views.requests(flood.userId, flood.webhookId);
      expect(read.requests).toHaveLength(10);
      for (const r of read.requests) expect(r.schema).toMatchObject({ valid: null, errors: [] });
      expect(read.requests.map((r) => r.schema?.error)).toContain(BUSY);
    },
  );
});
