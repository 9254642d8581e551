// What changed between two captures of a webhook, for every door (REST my-webhook-diff, MCP
// webhook_diff, the dashboard's compare page): both among those the webhook keeps (else 404), their
// bodies diffed on the capture diffs' threads (domain/webhooks/capture-diff-threads.ts), never on the event loop.
import type { Kysely } from 'kysely';
import { keptOf } from '../../../db/webhooks/capture-retention.ts';
import { listCapturedRequests } from '../../../db/webhooks/captured-requests.ts';
import type { Database } from '../../../db/schema.ts';
import { DEFAULT_IGNORED_HEADERS } from '../../../domain/webhooks/capture-diff.ts';
import { CaptureDiffThreads } from '../../../domain/webhooks/capture-diff-threads.ts';
import { NotFoundError } from '../../../lib/errors.ts';
import { ownedWebhook } from './webhook-settings.ts';

export function webhookDiffService({
  db,
  threads = new CaptureDiffThreads(),
}: {
  db: Kysely<Database>;
  threads?: CaptureDiffThreads;
}) {
  return {
    /**
     * What changed from capture `a` to capture `b` of the caller's webhook (both among those it
     * keeps, else 404); `ignore`: header names to leave out (undefined: the usual ones). 503 when too
     * many diffs wait, 504 when the bodies take past a diff's time or heap.
     */
    async diff(userId: number, webhookId: string, a: number, b: number, ignore?: readonly string[]) {
      const webhook = await ownedWebhook(db, userId, webhookId);
      const rows = await listCapturedRequests(db, webhook.id, 2, 0, { ...(await keptOf(db, webhook)), ids: [a, b] });
      const side = (id: number) => {
        const row = rows.find((r) => r.id === id);
        if (!row) throw new NotFoundError(`No capture ${id} among those webhook ${webhookId} keeps`);
        return row;
      };
      const [x, y] = [side(a), side(b)];
      return {
        a: { id: x.id, created_at: x.createdAt.toISOString() },
        b: { id: y.id, created_at: y.createdAt.toISOString() },
        ...(await threads.diff(String(userId), x, y, ignore ?? DEFAULT_IGNORED_HEADERS)),
      };
    },
  };
}
