// The webhook calls the commands share: creating one, finding one of the user's webhooks (my-webhooks:
// there is no endpoint of one), finding one capture of a webhook (my-webhook-requests: there is no
// endpoint of one either); and the API's webhook schemas, for the commands that check their input.
import type { Capture, Webhook } from './captures.ts';
import { client, pathOf, type Client } from '../client.ts';
import { currentService } from '../config.ts';
import { webhookOperations as ops } from '../contract.ts';
import { ApiError } from '../errors.ts';

export const api = () => client(currentService());

/** The API's webhook schemas and the check against them, loaded only by a command that checks before it sends. */
export async function webhookSchemas() {
  const [check, schemas] = await Promise.all([
    import('../check-input.ts'),
    import('../../contract/webhooks/webhooks.ts'),
  ]);
  return { ...schemas, checked: check.checked };
}

export type Created = Omit<Webhook, 'id' | 'request_count'> & { success: true; message: string };

export async function createWebhook(c: Client, body: Record<string, unknown> = {}): Promise<Created> {
  return c.call('POST', pathOf(ops.create), { json: body });
}

/** The my-webhooks answer narrowed to one webhook. */
export async function findWebhook(
  c: Client,
  id: string,
): Promise<{ success: true; data: { total: 1; webhooks: [Webhook] } }> {
  const list = await c.call<{ data: { webhooks: Webhook[] } }>('GET', pathOf(ops.list));
  const found = list.data.webhooks.find((w) => w.webhook_id === id);
  if (!found) throw new ApiError(`webhook ${id}`, 404, 'not_found', `No webhook ${id} among yours`);
  return { success: true, data: { total: 1, webhooks: [found] } };
}

/** Captures per page while looking for one. */
const PAGE = 100;

/**
 * The capture `requestId` of the webhook: the pages of my-webhook-requests, newest first, until it
 * shows or the page has gone past it (ids grow with time, so a recent capture is on the first page).
 */
export async function findCapture(c: Client, webhookId: string, requestId: number): Promise<Capture> {
  let cursor: string | undefined;
  for (;;) {
    const page = await c.call<{ data: { requests: Capture[]; next_cursor?: string } }>(
      'GET',
      pathOf(ops.requests, {}, { webhook_id: webhookId, limit: PAGE, cursor }),
    );
    const found = page.data.requests.find((r) => r.id === requestId);
    if (found) return found;
    const oldest = page.data.requests.at(-1)?.id;
    cursor = page.data.next_cursor;
    if (!cursor || oldest === undefined || oldest < requestId)
      throw new ApiError(
        `webhook replay ${webhookId} ${requestId}`,
        404,
        'not_found',
        `No captured request ${requestId} in webhook ${webhookId} (among those it keeps)`,
      );
  }
}
