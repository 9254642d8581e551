import Router from '@koa/router';
import { webhookOperations as ops } from '../../contract/webhooks/webhooks.ts';
import type { Services } from '../services/index.ts';
import { startSse } from '../sse.ts';
import { sendDownload } from '../download.ts';
import { serve, type V1Router } from './serve.ts';

export function webhookRoutes({
  webhooks,
  streams,
  webhookExports,
  webhookReplays,
}: Pick<Services, 'webhooks' | 'streams' | 'webhookExports' | 'webhookReplays'>): V1Router {
  const router: V1Router = new Router();
  serve(router, ops.create, async (ctx, { body }) => ({
    success: true,
    ...(await webhooks.create(ctx.state.account, body)),
  }));
  serve(router, ops.update, async (ctx, { body: { webhook_id, ...settings } }) => ({
    success: true,
    ...(await webhooks.update(ctx.state.account, webhook_id, settings)),
  }));
  serve(router, ops.list, async (ctx) => ({ success: true, data: await webhooks.list(ctx.state.account) }));
  serve(router, ops.requests, async (ctx, { query }) => {
    const { webhook_id, limit, cursor, method, header, q, since, until, schema } = query;
    return {
      success: true,
      webhook_id,
      data: await webhooks.search(ctx.state.account.userId, webhook_id, {
        filter: { method, header, text: q, since, until },
        limit,
        cursor,
        schema,
      }),
    };
  });
  serve(router, ops.diff, async (ctx, { query }) => ({
    success: true,
    webhook_id: query.webhook_id,
    ...(await webhooks.diff(ctx.state.account.userId, query.webhook_id, query.a, query.b, query.ignore_headers)),
  }));
  // Waiting holds one of the account's live-stream slots while it lasts, and ends with the client, or
  // with its key: a key revoked meanwhile ends the wait with 401, and what it found is not sent.
  serve(router, ops.wait, async (ctx, { query }) => {
    const { webhook_id, timeout, method, header, q, since } = query;
    const gone = new AbortController();
    const onClose = () => gone.abort();
    ctx.res.once('close', onClose);
    if (ctx.res.destroyed || ctx.req.socket.destroyed) gone.abort();
    const credential = ctx.state.credential.watch();
    try {
      const answer = await streams.hold(ctx.state.account, (lost) =>
        webhooks.waitFor(
          ctx.state.account.userId,
          webhook_id,
          { method, header, text: q, since },
          timeout * 1000,
          AbortSignal.any([gone.signal, lost, credential.signal]),
        ),
      );
      if (answer.request) await credential.confirm(); // false aborts the signal: what was found is not sent
      credential.signal.throwIfAborted();
      return { success: true, webhook_id, ...answer };
    } finally {
      credential.stop();
      ctx.res.off('close', onClose);
    }
  });
  serve(router, ops.replay, async (ctx, { body }) => ({
    success: true,
    ...(await webhookReplays.replay(ctx.state.account.userId, body.webhook_id, body.request_id, body.target_url)),
  }));
  // The capture is recorded as sent from the caller's address.
  serve(router, ops.trigger, async (ctx, { body }) => {
    if (!webhooks.trigger) throw new Error('test events take the capture path, which this process does not serve');
    return { success: true, ...(await webhooks.trigger(ctx.state.account.userId, body, ctx.ip)) };
  });
  serve(router, ops.export, async (ctx, { query }) => {
    const { webhook_id, format, method, header, q, since, until } = query;
    const chunks = await webhookExports.export(
      ctx.state.account.userId,
      webhook_id,
      { method, header, text: q, since, until },
      format,
    );
    sendDownload(ctx, `webhook-${webhook_id}.${format === 'har' ? 'har' : 'json'}`, chunks);
  });
  // New captures as Server-Sent Events: first everything kept (as the polling answer), then each
  // batch of new requests; `end` when the webhook is deleted.
  serve(router, ops.events, async (ctx, { query, headers }) => {
    const userId = ctx.state.account.userId;
    await webhooks.requests(userId, query.webhook_id, Number.MAX_SAFE_INTEGER); // 404 now, before the stream starts
    const lease = await streams.open(ctx.state.account);
    startSse(ctx, webhooks.requestsStream(userId, query.webhook_id, headers['last-event-id']), {
      lease,
      wake: (notify) => webhooks.watch(query.webhook_id, notify),
    });
  });
  serve(router, ops.remove, async (ctx, { body }) => {
    const { message } = await webhooks.remove(ctx.state.account.userId, body.webhook_id);
    return { success: true, message, webhook_id: body.webhook_id };
  });
  return router;
}
