// Webhooks as a user sees them, for every door (REST, MCP, dashboard): one owner check, one shape.
// One object of three services: webhook-settings.ts (CRUD), webhook-requests.ts (list, search), webhook-live.ts (SSE).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { webhookLiveService } from './webhook-live.ts';
import { webhookRequestService } from './webhook-requests.ts';
import { webhookSettingsService } from './webhook-settings.ts';

export function webhookService(
  db: Kysely<Database>,
  baseUrl: string,
  kv?: KvStore,
  box?: SecretBox,
  allow: readonly string[] = [],
  settingsChanged: (webhookId: string) => void = () => {},
) {
  const views = webhookRequestService({ db, box });
  const live = webhookLiveService({ db, kv, views });
  const settings = webhookSettingsService({ db, baseUrl, kv, box, allow, settingsChanged, live });
  return { ...settings, ...views, ...live };
}

export type WebhookService = ReturnType<typeof webhookService>;
/** One captured request as every door shows it. */
export type CapturedView = Awaited<ReturnType<WebhookService['requests']>>['requests'][number];
