// The capture service's reading of a webhook's owner and rules (api/services/webhooks/captures.ts), on an
// embedded database: a stored rule that no longer compiles never matches, and the operator is told
// which webhook and rule; the owners of webhooks not cached are read together, not one statement each.
import { type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureService } from '../../../../../api/services/webhooks/captures.ts';
import { openDatabase, type DatabaseHandle } from '../../../../../db/connect.ts';
import { upsertUser } from '../../../../../db/users.ts';
import { createWebhook } from '../../../../../db/webhooks/webhooks.ts';
import { MemoryKvStore } from '../../../../../lib/kv/index.ts';
import { NotFoundError } from '../../../../../lib/errors.ts';
import { RuleRequest } from '../../../../../lib/webhooks/webhook-templates.ts';
import { tempDir } from '../../../../support/processes.ts';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await openDatabase({ databaseUrl: undefined, dataDir: await tempDir('captures-service') });
});
afterAll(() => database?.close());

describe('captureService', () => {
  it(
    'tells the operator of a stored rule that no longer compiles, ' + "and answers with the webhook's other rules",
    async () => {
      const user = await upsertUser(database.db, 'captures-service@example.test', 'free');
      const answer = (status: number) => ({ status, headers: {}, body: '', delay_ms: 0 });
      // Stored as an older engine took it: RE2 refuses `a(b` now.
      const webhook = await createWebhook(database.db, user.id, 10, {
        rules: [
          { match: { body: { regex: 'a(b' } }, response: answer(500) },
          { match: {}, response: answer(202) },
        ],
      });
      const broken: Array<{ webhookId: string; rule: number; err: unknown }> = [];
      const captures = captureService({
        db: database.db,
        kv: new MemoryKvStore(),
        onBrokenRule: (webhookId, rule, err) => broken.push({ webhookId, rule, err }),
      });
      const owner = await captures.admit(webhook!.webhookId, '127.0.0.1');
      // Compiled where the owner's time is charged, at the first capture that runs them: not when read.
      expect(broken).toEqual([]);
      const request = new RuleRequest({ method: 'POST', path: '/', search: '', headers: {}, text: 'ab' });
      expect(owner.rules?.pick(request)).toBe(1);
      expect(broken).toEqual([{ webhookId: webhook!.webhookId, rule: 0, err: expect.any(Error) }]);
      // Read once while cached, compiled once: told once.
      expect((await captures.admit(webhook!.webhookId, '127.0.0.1')).rules?.pick(request)).toBe(1);
      expect(broken).toHaveLength(1);
    },
  );

  it('reads the owners of webhooks not cached together: one statement for those that come meanwhile', async () => {
    const user = await upsertUser(database.db, 'captures-owners@example.test', 'enterprise');
    const webhooks = await Promise.all(Array.from({ length: 30 }, () => createWebhook(database.db, user.id, 100, {})));
    const ids = webhooks.map((w) => w!.webhookId);
    let selects = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        if (args.node.kind === 'SelectQueryNode') selects += 1;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const captures = captureService({ db: database.db.withPlugin(counting), kv: new MemoryKvStore() });
    // A burst: the first read goes at once, the others arrive while it is under way (an unknown id among them).
    const unknown = 'w'.repeat(24);
    const admitted = await Promise.allSettled([...ids, unknown].map((id) => captures.admit(id, '127.0.0.1')));
    expect(admitted.slice(0, 30).map((a) => a.status === 'fulfilled' && a.value.userId)).toEqual(
      ids.map(() => user.id),
    );
    expect(admitted[30]).toMatchObject({ status: 'rejected', reason: expect.any(NotFoundError) });
    expect(selects).toBeLessThanOrEqual(2); // one statement per webhook before
    // Cached now: no statement more.
    await Promise.all(ids.map((id) => captures.admit(id, '127.0.0.1')));
    expect(selects).toBeLessThanOrEqual(2);

    // A webhook whose stored settings no longer hold their shape fails its own captures, not those read with it.
    const [bad, good] = await Promise.all([1, 2].map(() => createWebhook(database.db, user.id, 100, {})));
    await sql`update webhooks set rules = '{"not": "rules"}'::jsonb where webhook_id = ${bad!.webhookId}`.execute(
      database.db,
    );
    const [badOne, goodOne] = await Promise.allSettled(
      [bad!.webhookId, good!.webhookId].map((id) => captures.admit(id, '127.0.0.1')),
    );
    expect(badOne).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringContaining('webhooks.rules') },
    });
    expect(goodOne).toMatchObject({ status: 'fulfilled', value: { userId: user.id } });
  });
});
