// The remote MCP endpoint: Streamable HTTP at `/mcp`, for both protocol revisions, behind OAuth bearer
// tokens for the resource `{BASE_URL}/mcp`. Each request gets a server and a transport of its own, never
// shared: nothing depends on a session (plan limits are per account, streams per request).
// - 2026-07-28 requests (the `_meta` envelope on each, no `initialize`) and 2025-11-25 ones
//   (`initialize`, then calls, and that revision's tasks) are told apart and served in serve.ts, both
//   by servers from createMcpServer, behind the same checks here.
// - Origin (when sent) must be ours and Host one of ours: DNS-rebinding protection, 403 otherwise.
// - No or bad token: 401 with `WWW-Authenticate: Bearer resource_metadata=..., scope=...`, which is
//   how a client that knows only the URL finds the authorization server (RFC 9728).
// - A tool call the token's scopes do not allow: 403 `insufficient_scope` naming the scope needed.
// - API keys are not accepted here (and these tokens are not accepted on /api/v1).
// - A request follows its token's grant while it lives: disconnecting the app (or deleting the user)
//   ends a long call within seconds, answered with an error saying so (api/mcp/revocation.ts).
import Router from '@koa/router';
import type { Context } from 'koa';
import type { ApiDeps } from '../deps.ts';
import { createTokenVerifier } from '../oauth/verify.ts';
import { MCP_SCOPES, type OauthServer } from '../oauth/provider.ts';
import { readBody } from '../read-body.ts';
import { AppError } from '../../lib/errors.ts';
import type { Services } from '../services/index.ts';
import { scopesAllowing } from './run.ts';
import type { McpToolDeps } from './tools.ts';

export const MCP_BODY_LIMIT_BYTES = 1024 * 1024;
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

export function mcpRoutes(deps: ApiDeps & { oauth: OauthServer }, services: Services): Router {
  const router = new Router();
  const { config } = deps;
  const base = new URL(config.baseUrl);
  const metadataUrl = `${config.baseUrl}${RESOURCE_METADATA_PATH}/mcp`;
  const verify = createTokenVerifier({ db: deps.db, oauth: deps.oauth });
  const toolDeps: McpToolDeps = {
    lookups: services.lookups,
    webhooks: services.webhooks,
    webhookReplays: services.webhookReplays,
    webhookWaits: services.webhookWaits,
    quota: services.quota,
    streams: services.streams,
    site: services.site,
    video: services.video,
    loadTests: services.loadTests,
    targets: services.targets,
    domains: services.domains,
    tasks: services.tasks,
    baseUrl: config.baseUrl,
    logger: deps.logger,
  };
  const listenHost = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  const allowedHosts = new Set([base.host, listenHost, `localhost:${config.port}`]);

  const metadata = {
    resource: deps.oauth.resource,
    authorization_servers: [deps.oauth.issuer],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'netops MCP tools',
    resource_documentation: `${config.baseUrl}/#mcp`,
  };
  for (const path of [RESOURCE_METADATA_PATH, `${RESOURCE_METADATA_PATH}/mcp`]) {
    router.get(path, (ctx) => {
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.body = metadata;
    });
  }

  const challenge = (ctx: Context, status: 401 | 403, params: Record<string, string>, message: string) => {
    const header = Object.entries({ resource_metadata: metadataUrl, ...params })
      .map(([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`)
      .join(', ');
    ctx.status = status;
    ctx.set('WWW-Authenticate', `Bearer ${header}`);
    ctx.body = {
      success: false,
      error: status === 401 ? 'Unauthorized' : 'Forbidden',
      code: status,
      error_code: status === 401 ? 'unauthorized' : 'forbidden',
      message,
    };
  };
  const rpcError = (ctx: Context, status: number, code: number, message: string) => {
    ctx.status = status;
    ctx.body = { jsonrpc: '2.0', id: null, error: { code, message } };
  };

  // The MCP SDK and our tools on it are loaded by the first request that gets past the checks, not at
  // start: an idle process, or one nobody uses MCP with, does without them (~12 MB of heap, measured).
  let serving: Promise<McpHandlers> | undefined;
  const handlers = () =>
    (serving ??= loadMcpHandlers(deps, services).catch((err: unknown) => {
      serving = undefined;
      throw err;
    }));

  router.all('/mcp', async (ctx) => {
    const origin = ctx.get('origin');
    if (origin && origin !== base.origin)
      return rpcError(ctx, 403, -32000, `Origin ${origin.slice(0, 100)} is not allowed: only ${base.origin}`);
    if (!allowedHosts.has(ctx.get('host').toLowerCase()))
      return rpcError(ctx, 403, -32000, 'Host header is not this server');

    const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    if (!m)
      return challenge(
        ctx,
        401,
        { scope: 'mcp:tools' },
        'Sign in with OAuth to use the MCP endpoint (API keys work only on /api/v1)',
      );
    if (m[1]!.startsWith('ntk_'))
      return challenge(
        ctx,
        401,
        { error: 'invalid_token', error_description: 'an API key, not an OAuth access token', scope: 'mcp:tools' },
        'This is an API key, which works on /api/v1; the MCP endpoint takes an OAuth access ' +
          'token (sign in with an MCP client, or `npm run mcp-token`)',
      );
    const verdict = await verify(m[1]!);
    if (!verdict.ok)
      return challenge(
        ctx,
        401,
        { error: 'invalid_token', error_description: verdict.reason, scope: 'mcp:tools' },
        verdict.reason,
      );
    const { holder } = verdict;

    if (ctx.method !== 'POST') {
      // Stateless: no sessions to resume or end, no server-initiated stream.
      ctx.set('Allow', 'POST');
      return rpcError(
        ctx,
        405,
        -32000,
        `${ctx.method} is not supported: this endpoint is stateless, send JSON-RPC messages with POST`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse((await readBody(ctx.req, MCP_BODY_LIMIT_BYTES)).toString('utf8'));
    } catch (err) {
      if (err instanceof AppError && err.code === 'payload_too_large')
        return rpcError(ctx, 413, -32600, `Request larger than ${MCP_BODY_LIMIT_BYTES} bytes`);
      return rpcError(ctx, 400, -32700, 'Parse error: the body is not valid JSON');
    }

    const messages = (Array.isArray(body) ? body : [body]) as Array<{
      id?: unknown;
      method?: unknown;
      params?: { name?: unknown; task?: unknown; _meta?: { progressToken?: unknown } };
    }>;
    // Task-augmented calls answer at once; a plain call that sent a progress token is answered as an
    // event stream, so that its progress notifications reach the client while the job runs.
    const taskRequests = new Set(
      messages.filter((m) => m?.method === 'tools/call' && m.params?.task !== undefined).map((m) => m.id),
    );
    const wantsProgress = messages.some(
      (m) => m?.params?._meta?.progressToken !== undefined && !taskRequests.has(m.id),
    );
    for (const call of messages) {
      // Our own method names (asTaskCalls renames task-augmented calls to one, after the checks
      // below) are never taken from a client: one would reach a tool past its scope check.
      if (typeof call?.method === 'string' && call.method.startsWith('netops/'))
        return rpcError(ctx, 400, -32601, `Method not found: ${call.method.slice(0, 100)}`);
      // Cancelling a task stops a job: like the tools that change things, it needs mcp:tools.
      if (call?.method === 'tasks/cancel' && !holder.scopes.includes('mcp:tools')) {
        return challenge(
          ctx,
          403,
          { error: 'insufficient_scope', scope: 'mcp:tools' },
          `Cancelling a task needs the scope mcp:tools; this token has ${holder.scopes.join(' ') || 'none'}`,
        );
      }
      if (call?.method !== 'tools/call' || typeof call.params?.name !== 'string') continue;
      const allowing = scopesAllowing(call.params.name);
      if (!allowing.some((s) => holder.scopes.includes(s))) {
        return challenge(
          ctx,
          403,
          { error: 'insufficient_scope', scope: allowing.at(-1)! },
          `The tool ${call.params.name} needs the scope ${allowing.join(' or ')}; this token has ` +
            `${holder.scopes.join(' ') || 'none'}`,
        );
      }
    }

    const { serve, listening, createMcpServer } = await handlers();
    await services.accounts.recordAppUse(holder.grantId);
    const account = { userId: holder.account.id, plan: holder.account.plan };
    const authInfo = {
      token: holder.token,
      clientId: holder.clientId,
      scopes: holder.scopes,
      expiresAt: holder.expiresAt,
    };
    // A webhook's new captures (2026-07-28 subscriptions/listen): served by a handler of its own
    // (subscriptions.ts), counted against the plan as opening a REST live stream is (429 when used up).
    if (listening.claims(body)) {
      const verdict = await services.quota.spend(account);
      if (!verdict.allowed) throw services.quota.refusal(account.plan, verdict);
      return listening.serve(ctx, {
        body,
        account,
        authInfo,
        credential: services.credentials.oauthGrant(holder.grantId, holder.account.id).watch(),
        server: () => createMcpServer(toolDeps, account, { era: 'modern', clientIp: ctx.ip }),
      });
    }
    await serve(ctx, {
      body,
      wantsProgress,
      withTasks: toolDeps.tasks !== undefined,
      authInfo,
      credential: services.credentials.oauthGrant(holder.grantId, holder.account.id).watch(),
      serverFor: (era) => createMcpServer(toolDeps, account, { era, clientIp: ctx.ip }),
    });
  });

  return router;
}

type McpHandlers = Awaited<ReturnType<typeof loadMcpHandlers>>;

async function loadMcpHandlers(deps: ApiDeps, services: Services) {
  const [{ mcpServing }, { captureSubscriptions }, { createMcpServer }] = await Promise.all([
    import('./serve.ts'),
    import('./subscriptions.ts'),
    import('./tools.ts'),
  ]);
  return {
    serve: mcpServing({ logger: deps.logger, bodyLimit: MCP_BODY_LIMIT_BYTES }),
    listening: captureSubscriptions({
      webhooks: services.webhooks,
      streams: services.streams,
      logger: deps.logger,
      bodyLimit: MCP_BODY_LIMIT_BYTES,
    }),
    createMcpServer,
  };
}
