// `subscriptions/listen` (2026-07-28) for a webhook's new captures: a client that listens to
// `netops://webhooks/{webhook_id}/requests` of its own webhooks gets `notifications/resources/updated`
// for that URI each time the webhook stores captures (heard in any API process over the key-value
// store, as the live streams hear them: WebhookService.watch), and reads the resource again.
// The SDK's handler serves the stream (its ack, filtering, ids, keep-alives, teardown); it filters by
// URI alone and its bus is shared by everyone, so a listen is served here, by a handler of its own
// whose bus hears only the webhooks the request was checked to own:
// - a URI that is not one of the user's webhooks' captures (unknown, another user's, or a resource
//   that does not change) is refused, all alike, before anything is acknowledged;
// - each notification goes out only once the token's grant is confirmed, and the stream ends when
//   the grant is revoked, the client leaves, or the account's live-stream slot is lost;
// - a listen holds one of the account's live-stream slots (the plan's limit, as a live stream).
// 2025-11-25 has no `resources/subscribe` here: its notifications need a session's stream, and /mcp
// keeps none (docs/decisions.md).
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Context } from 'koa';
import { type AuthInfo, createMcpHandler, type McpServer, type ServerEventBus } from '@modelcontextprotocol/server';
import type { CredentialWatch } from '../../lib/auth/credential-checks.ts';
import { AppError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import type { Plan } from '../../lib/plans.ts';
import type { StreamService } from '../services/streams.ts';
import type { WebhookService } from '../services/webhooks/webhooks.ts';
import { capturesUri } from './resources.ts';

interface ListenMessage {
  jsonrpc: '2.0';
  id: string | number;
  method: 'subscriptions/listen';
  params?: { notifications?: { resourceSubscriptions?: unknown } };
}

export interface ListenExchange {
  body: ListenMessage;
  account: { userId: number; plan: Plan };
  authInfo: AuthInfo;
  /** Follows the token's grant while the stream lives; stopped when it ends. */
  credential: CredentialWatch;
  /** A new server as the signed-in user, at 2026-07-28 (the handler reads its capabilities). */
  server: () => McpServer;
}

const CAPTURES_URI = /^netops:\/\/webhooks\/([^/]+)\/requests$/;
/** Webhooks one stream follows, at most (each a watch and an ownership check). */
const MAX_SUBSCRIPTIONS = 50;

export function captureSubscriptions(deps: {
  webhooks: Pick<WebhookService, 'scoped' | 'watch'>;
  streams: Pick<StreamService, 'hold'>;
  logger: Logger;
  bodyLimit: number;
}) {
  /** The webhook ids the URIs name, each checked to be the user's; the refusal's words otherwise. */
  async function ownedWebhooks(userId: number, uris: unknown): Promise<string[] | { refused: string }> {
    if (uris === undefined) return [];
    if (!Array.isArray(uris)) return { refused: 'resourceSubscriptions: must be a list of resource URIs' };
    const distinct = [...new Set(uris)];
    if (distinct.length > MAX_SUBSCRIPTIONS)
      return { refused: `resourceSubscriptions: at most ${MAX_SUBSCRIPTIONS} resources on one stream` };
    const ids: string[] = [];
    for (const uri of distinct) {
      const m = typeof uri === 'string' ? CAPTURES_URI.exec(uri) : null;
      let id = '';
      try {
        id = m ? decodeURIComponent(m[1]!) : '';
      } catch {
        // Not a percent-encoding at all: no webhook's.
      }
      // Only the spelling the notifications use: another would pass here and never be notified.
      if (id !== '' && capturesUri(id) !== uri) id = '';
      const owned =
        id !== '' &&
        (await deps.webhooks.scoped(userId, id, {}).then(
          () => true,
          () => false,
        ));
      if (!owned)
        return {
          refused:
            `resourceSubscriptions: ${String(uri).slice(0, 200)} is not a resource of yours that ` +
            'changes; subscribe to netops://webhooks/{webhook_id}/requests of one of your webhooks',
        };
      ids.push(id);
    }
    return ids;
  }

  return {
    /** Whether the body is one `subscriptions/listen` request: served here rather than by the shared handler. */
    claims: (body: unknown): body is ListenMessage =>
      typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'subscriptions/listen',

    async serve(ctx: Context, x: ListenExchange): Promise<void> {
      const { credential, body } = x;
      const left = new AbortController();
      ctx.res.on('close', () => left.abort());
      try {
        const owned = await ownedWebhooks(x.account.userId, body.params?.notifications?.resourceSubscriptions);
        if ('refused' in owned) {
          ctx.body = { jsonrpc: '2.0', id: body.id, error: { code: -32602, message: owned.refused } };
          return;
        }
        await deps.streams.hold(x.account, async (lost) => {
          const bus: ServerEventBus = {
            publish: () => {}, // nothing publishes here: the watches below are the only source
            subscribe(listener) {
              const unwatch = owned.map((id) =>
                deps.webhooks.watch(id, () => {
                  void credential.confirm().then((holds) => {
                    if (holds) listener({ kind: 'resource_updated', uri: capturesUri(id) });
                  });
                }),
              );
              return () => {
                for (const u of unwatch) u();
              };
            },
          };
          const handler = createMcpHandler(x.server, {
            legacy: 'reject',
            bus,
            maxRequestBodySize: deps.bodyLimit,
            onerror: (err) =>
              /^Rejected inbound request/.test(err.message)
                ? deps.logger.debug({ err }, 'MCP subscription refused')
                : deps.logger.error({ err }, 'MCP subscription failed'),
          });
          const headers = new Headers();
          for (const [name, value] of Object.entries(ctx.headers))
            if (typeof value === 'string') headers.set(name, value);
          const request = new Request(new URL(ctx.originalUrl, ctx.URL.origin), {
            method: 'POST',
            headers,
            signal: AbortSignal.any([left.signal, credential.signal, lost]),
          });
          const response = await handler.fetch(request, { parsedBody: body, authInfo: x.authInfo });
          ctx.respond = false;
          ctx.res.writeHead(response.status, Object.fromEntries(response.headers));
          if (!response.body) return void ctx.res.end();
          await pipeline(Readable.fromWeb(response.body as NodeReadableStream), ctx.res).catch(() => {
            // The stream was cut (the client left, the grant was revoked, the slot lost): the connection goes with it.
            ctx.res.destroy();
          });
        });
      } catch (err) {
        if (!(err instanceof AppError) || !err.isCallersFault) throw err;
        if (ctx.res.headersSent) return void ctx.res.destroy();
        // The plan's live streams are all open: 429 with Retry-After, the JSON-RPC error in the body.
        ctx.status = err.status;
        ctx.set(err.headers);
        ctx.body = { jsonrpc: '2.0', id: body.id, error: { code: -32603, message: err.message } };
      } finally {
        credential.stop();
      }
    },
  };
}
