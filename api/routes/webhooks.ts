import Router from '@koa/router';
import { z } from 'zod';
import { WEBHOOK_ID_PATTERN } from '../capture.ts';
import { webhookViews } from '../webhook-views.ts';
import type { ApiDeps } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import { validate } from '../validate.ts';
import { startSse } from '../sse.ts';

export const webhookIdField = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .regex(WEBHOOK_ID_PATTERN, 'is not a webhook id (up to 64 letters, digits, - and _)');
export const requestsQuery = z.object({ webhook_id: webhookIdField });
/** A reconnecting Server-Sent Events client sends the last event id it received: the stream resumes after it. */
export const resumeHeaders = z.object({
  'last-event-id': z
    .string()
    .regex(/^\d{1,15}$/, 'must be the id of an event this stream sent')
    .transform(Number)
    .optional(),
});
export const deleteBody = z.object({ webhook_id: webhookIdField });

export function webhookRoutes({ db, config }: ApiDeps): Router<AuthState> {
  const router = new Router<AuthState>({ prefix: '/network' });
  const views = webhookViews(db, config.baseUrl);

  router.post('/my-webhook-create', async (ctx) => {
    ctx.status = 201;
    ctx.body = { success: true, ...(await views.create(ctx.state.account.userId)) };
  });

  router.get('/my-webhooks', async (ctx) => {
    ctx.body = { success: true, data: await views.list(ctx.state.account.userId) };
  });

  router.get('/my-webhook-requests', async (ctx) => {
    const { webhook_id } = validate(requestsQuery, ctx.query, 'query');
    ctx.body = { success: true, webhook_id, data: await views.requests(ctx.state.account.userId, webhook_id) };
  });

  // New captures as Server-Sent Events: first everything kept (as the polling answer), then each
  // batch of new requests; `end` when the webhook is deleted.
  router.get('/my-webhook-requests/events', async (ctx) => {
    const { webhook_id } = validate(requestsQuery, ctx.query, 'query');
    const userId = ctx.state.account.userId;
    const resume = validate(resumeHeaders, ctx.headers, 'header')['last-event-id'];
    await views.requests(userId, webhook_id, Number.MAX_SAFE_INTEGER); // 404 now, before the stream starts
    startSse(ctx, views.requestsStream(userId, webhook_id, resume));
  });

  router.post('/my-webhook-delete', async (ctx) => {
    const { webhook_id } = validate(deleteBody, ctx.request.body, 'body');
    const { message } = await views.remove(ctx.state.account.userId, webhook_id);
    ctx.body = { success: true, message, webhook_id };
  });

  return router;
}
