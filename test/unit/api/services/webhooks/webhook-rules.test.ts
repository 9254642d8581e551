// Trying a request against a webhook's rules (the dashboard's test box) runs the owner's rules as a
// capture does, within the same time: once it is spent, trying is refused with 429 too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookRuleService } from '../../../../../api/services/webhooks/webhook-rules.ts';
import { openDatabase, type DatabaseHandle } from '../../../../../db/connect.ts';
import { upsertUser } from '../../../../../db/users.ts';
import { createWebhook } from '../../../../../db/webhooks/webhooks.ts';
import { RateLimitedError } from '../../../../../lib/errors.ts';
import { PLAN_LIMITS } from '../../../../../lib/plans.ts';
import { RuleBudget } from '../../../../../lib/webhooks/rule-budget.ts';
import { tempDir } from '../../../../support/processes.ts';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await openDatabase({ databaseUrl: undefined, dataDir: await tempDir('webhook-rules-service') });
});
afterAll(() => database?.close());

describe("trying a webhook's rules", () => {
  it("answers by the rule that holds, charged to the owner's rules' time, and refuses once it is spent", async () => {
    const user = await upsertUser(database.db, 'rules-tried@example.test', 'free');
    const webhook = await createWebhook(database.db, user.id, 10, {
      rules: [{ match: { method: ['POST'] }, response: { status: 202, headers: {}, body: 'ok', delay_ms: 0 } }],
    });
    let now = 0;
    const ruleBudget = new RuleBudget(() => now);
    const rules = webhookRuleService({ db: database.db, ruleBudget });
    const account = { userId: user.id, plan: 'free' as const };
    const request = { method: 'POST', path: '/x', headers: {}, body: '' };
    expect(await rules.tryRules(account, webhook!.webhookId, request)).toMatchObject({ matched_rule: 0 });

    // The captures of the same owner spent the rest (the bucket is shared).
    ruleBudget.spend(user.id, 'free', PLAN_LIMITS.free.ruleMsPerMinute);
    const refused = rules.tryRules(account, webhook!.webhookId, request);
    await expect(refused).rejects.toBeInstanceOf(RateLimitedError);
    await expect(refused).rejects.toThrow(/Your response rules ran for their 1000 ms of this minute/);
    now += 60_000;
    expect(await rules.tryRules(account, webhook!.webhookId, request)).toMatchObject({ matched_rule: 0 });
  });
});
