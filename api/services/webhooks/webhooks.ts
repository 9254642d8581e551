// Webhooks as a user sees them, for every door (REST, MCP, dashboard): one owner check, one shape.
// One object of six services: webhook-settings.ts (CRUD), webhook-requests.ts (list, search),
// webhook-diff.ts (diff, its bodies on threads of their own), webhook-live.ts (SSE, wait),
// webhook-rules.ts (trying a request against the rules), webhook-trigger.ts (test events).
import { webhookDiffService } from './webhook-diff.ts';
import { webhookLiveService } from './webhook-live.ts';
import { webhookRequestService } from './webhook-requests.ts';
import { webhookRuleService } from './webhook-rules.ts';
import { schemaChecks } from './webhook-schema-checks.ts';
import { type WebhookDeps, webhookSettingsService } from './webhook-settings.ts';
import { webhookTriggerService } from './webhook-trigger.ts';
import type { CaptureIntake } from './capture-intake.ts';
import type { RuleBudget } from '../../../lib/webhooks/rule-budget.ts';

/** `intake`: the capture path, which test events take (without it, none). */
export function webhookService(deps: WebhookDeps & { intake?: CaptureIntake; ruleBudget?: RuleBudget }) {
  const { db, kv, box, intake, captureBaseUrl = deps.baseUrl } = deps;
  const checks = schemaChecks({ db });
  const views = webhookRequestService({ db, box, checks });
  const live = webhookLiveService({ db, kv, views });
  const settings = webhookSettingsService({ ...deps, live, checks });
  return {
    ...settings,
    ...views,
    ...webhookDiffService({ db }),
    ...live,
    ...webhookRuleService({ db, ruleBudget: deps.ruleBudget }),
    ...webhookTriggerService({ db, box, intake, captureBaseUrl }),
  };
}

export type WebhookService = ReturnType<typeof webhookService>;
/** One captured request as every door shows it. */
export type CapturedView = Awaited<ReturnType<WebhookService['requests']>>['requests'][number];
