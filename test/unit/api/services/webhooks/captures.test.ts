// The capture service's reading of a webhook's owner and rules (api/services/webhooks/captures.ts), on an
// embedded database: a stored rule that no longer compiles never matches, and the operator is told
// which webhook and rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureService } from '../../../../../api/services/webhooks/captures.ts';
import { openDatabase, type DatabaseHandle } from '../../../../../db/connect.ts';
import { upsertUser } from '../../../../../db/users.ts';
import { createWebhook } from '../../../../../db/webhooks/webhooks.ts';
import { MemoryKvStore } from '../../../../../lib/kv/index.ts';
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
      expect(broken).toEqual([{ webhookId: webhook!.webhookId, rule: 0, err: expect.any(Error) }]);
      const request = new RuleRequest({ method: 'POST', path: '/', search: '', headers: {}, text: 'ab' });
      expect(owner.rules?.pick(request)).toBe(1);
      // Read once while cached: told once.
      await captures.admit(webhook!.webhookId, '127.0.0.1');
      expect(broken).toHaveLength(1);
    },
  );
});
