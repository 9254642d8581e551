// What a request would get from a webhook's response rules, for the doors that try one before a
// sender does (the dashboard's test box): the same matching and filling the capture URL does.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import { captureAcknowledgement, compileRules, RuleRequest } from '../../../lib/webhooks/webhook-rules.ts';
import { ownedWebhook } from './webhook-settings.ts';
import { headerObject } from '../../../lib/net/header-object.ts';

export function webhookRuleService({ db }: { db: Kysely<Database> }) {
  return {
    /**
     * What a request would get from the webhook (the dashboard's test box): the rule that holds (null:
     * none) and its answer filled from the request, else the webhook's response, else the default.
     */
    async tryRules(
      account: { userId: number },
      webhookId: string,
      request: { method: string; path: string; headers: Record<string, string>; body: string },
    ) {
      const w = await ownedWebhook(db, account.userId, webhookId);
      const queryAt = request.path.indexOf('?');
      const asSent = new RuleRequest({
        method: request.method.toUpperCase(),
        path: queryAt === -1 ? request.path : request.path.slice(0, queryAt),
        search: queryAt === -1 ? '' : request.path.slice(queryAt + 1),
        // As the capture path has them: lower-case names on an object without a prototype.
        headers: headerObject(Object.entries(request.headers).flat()),
        text: request.body === '' ? null : request.body,
      });
      const rules = w.rules?.length ? compileRules(w.rules) : null;
      const index = rules ? rules.pick(asSent) : -1;
      const response =
        index !== -1
          ? rules!.answer(index, asSent)
          : (w.response ?? {
              status: 200,
              headers: { 'Content-Type': 'application/json; charset=utf-8' },
              body: JSON.stringify(captureAcknowledgement(webhookId)),
              delay_ms: 0,
            });
      return { matched_rule: index === -1 ? null : index, response };
    },
  };
}
