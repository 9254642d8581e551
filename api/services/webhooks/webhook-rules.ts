// What a request would get from a webhook's response rules, for the doors that try one before a
// sender does (the dashboard's test box): the same matching and filling the capture URL does.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import { captureAcknowledgement, compileRules, RuleRequest } from '../../../lib/webhooks/webhook-rules.ts';
import { ownedWebhook } from './webhook-settings.ts';
import { headerObject } from '../../../lib/net/header-object.ts';
import { RateLimitedError } from '../../../lib/errors.ts';
import { PLAN_LIMITS, type Plan } from '../../../lib/plans.ts';
import { RuleBudget } from '../../../lib/webhooks/rule-budget.ts';

/**
 * `ruleBudget`: the time each user's rules may run in this process, which the capture path spends too
 * (a test box that runs them for free would be a way around it).
 */
export function webhookRuleService({
  db,
  ruleBudget = new RuleBudget(),
}: {
  db: Kysely<Database>;
  ruleBudget?: RuleBudget;
}) {
  return {
    /**
     * What a request would get from the webhook (the dashboard's test box): the rule that holds (null:
     * none) and its answer filled from the request, else the webhook's response, else the default.
     */
    async tryRules(
      account: { userId: number; plan: Plan },
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
      const rules = w.rules;
      const tried = rules?.length
        ? ruleBudget.run(
            account,
            () => {
              const compiled = compileRules(rules);
              const index = compiled.pick(asSent);
              return { index, answer: index === -1 ? null : compiled.answer(index, asSent) };
            },
            (wait) =>
              new RateLimitedError(
                `Your response rules ran for their ${PLAN_LIMITS[account.plan].ruleMsPerMinute} ms of this minute ` +
                  `on this server (the ${account.plan} plan): try again in ${wait} s`,
                wait,
              ),
          )
        : { index: -1, answer: null };
      const index = tried.index;
      const response = tried.answer ??
        w.response ?? {
          status: 200,
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
          body: JSON.stringify(captureAcknowledgement(webhookId)),
          delay_ms: 0,
        };
      return { matched_rule: index === -1 ? null : index, response };
    },
  };
}
