import Router from '@koa/router';
import { z } from 'zod';
import {
  createWebhook,
  deleteOwnedWebhook,
  findOwnedWebhook,
  listCapturedRequests,
  listWebhooks,
  captureFields,
} from '../../db/webhooks.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { CAPTURE_KEEP_PER_WEBHOOK, WEBHOOK_ID_PATTERN } from '../capture.ts';
import type { ApiDeps } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import { validate } from '../validate.ts';

const webhookIdField = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .regex(WEBHOOK_ID_PATTERN, 'is not a webhook id (up to 64 letters, digits, - and _)');
const requestsQuery = z.object({ webhook_id: webhookIdField });
const deleteBody = z.object({ webhook_id: webhookIdField });

export function webhookRoutes({ db, config }: ApiDeps): Router<AuthState> {
  const router = new Router<AuthState>({ prefix: '/network' });
  const urlOf = (webhookId: string) => `${config.baseUrl}/webhook/${webhookId}`;

  router.post('/my-webhook-create', async (ctx) => {
    const webhook = await createWebhook(db, ctx.state.account.userId);
    ctx.status = 201;
    ctx.body = {
      success: true,
      webhook_id: webhook.webhookId,
      webhook_url: urlOf(webhook.webhookId),
      created_at: webhook.createdAt.toISOString(),
      message: 'Webhook created: send any HTTP request to webhook_url and read it back from my-webhook-requests',
    };
  });

  router.get('/my-webhooks', async (ctx) => {
    const webhooks = await listWebhooks(db, ctx.state.account.userId, CAPTURE_KEEP_PER_WEBHOOK);
    ctx.body = {
      success: true,
      data: {
        total: webhooks.length,
        webhooks: webhooks.map((w) => ({
          id: w.id,
          webhook_id: w.webhookId,
          webhook_url: urlOf(w.webhookId),
          request_count: w.requestCount,
          created_at: w.createdAt.toISOString(),
        })),
      },
    };
  });

  router.get('/my-webhook-requests', async (ctx) => {
    const { webhook_id } = validate(requestsQuery, ctx.query, 'query');
    const webhook = await findOwnedWebhook(db, ctx.state.account.userId, webhook_id);
    if (!webhook) throw new NotFoundError(`No webhook ${webhook_id} among yours`);
    const requests = await listCapturedRequests(db, webhook.id, CAPTURE_KEEP_PER_WEBHOOK);
    ctx.body = { success: true, webhook_id, data: { total: requests.length, requests: requests.map((r) => ({ id: r.id, ...captureFields(r) })) } };
  });

  router.post('/my-webhook-delete', async (ctx) => {
    const { webhook_id } = validate(deleteBody, ctx.request.body, 'body');
    if (!(await deleteOwnedWebhook(db, ctx.state.account.userId, webhook_id))) {
      throw new NotFoundError(`No webhook ${webhook_id} among yours`);
    }
    ctx.body = { success: true, message: 'Webhook and its captured requests deleted', webhook_id };
  });

  return router;
}
