// Webhooks as a user sees them, for every door (REST, MCP, dashboard): one owner check, one shape.
// One object of five services: webhook-settings.ts (CRUD), webhook-requests.ts (list, search),
// webhook-diff.ts (diff, its bodies on threads of their own), webhook-live.ts (SSE, wait),
// webhook-rules.ts (trying a request against the rules).
import { webhookDiffService } from './webhook-diff.ts';
import { webhookLiveService } from './webhook-live.ts';
import { webhookRequestService } from './webhook-requests.ts';
import { webhookRuleService } from './webhook-rules.ts';
import { schemaChecks } from './webhook-schema-checks.ts';
import { type WebhookDeps, webhookSettingsService } from './webhook-settings.ts';

export function webhookService(deps: WebhookDeps) {
  const { db, kv, box } = deps;
  const checks = schemaChecks({ db });
  const views = webhookRequestService({ db, box, checks });
  const live = webhookLiveService({ db, kv, views });
  const settings = webhookSettingsService({ ...deps, live, checks });
  return { ...settings, ...views, ...webhookDiffService({ db }), ...live, ...webhookRuleService({ db }) };
}

export type WebhookService = ReturnType<typeof webhookService>;
/** One captured request as every door shows it. */
export type CapturedView = Awaited<ReturnType<WebhookService['requests']>>['requests'][number];
