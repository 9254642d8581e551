// One /mcp request served, once the door (http.ts) has checked its token and scopes, by a server and a
// transport of its own. The SDK tells the revisions apart (isLegacyRequest, its own rule):
// - 2026-07-28: its handler for that revision (createMcpHandler), which answers as JSON, or as an event
//   stream once a call sends progress; a request declaring the tasks extension gets a job tool's task
//   (api/mcp/tasks-ext.ts, on the server itself: nothing to route here);
// - 2025-11-25 and earlier: its stateless Streamable HTTP transport, built here so that a plain call is
//   answered as JSON and only a call with a progress token as an event stream (as the 1.x SDK
//   answered), its task-augmented calls routed to our tasks (api/mcp/tasks-2025.ts).
// Whichever transport the server connects to follows the token's grant (api/mcp/revocation.ts).
import type { Context } from 'koa';
import type { ServerResponse } from 'node:http';
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { CredentialWatch } from '../../lib/auth/credential-checks.ts';
import type { Logger } from '../../lib/log.ts';
import { endOnRevocation } from './revocation.ts';
import { asTaskCalls } from './tasks-2025.ts';
import type { McpRequestInfo } from './tools.ts';

export interface McpExchange {
  /** The request's JSON-RPC body, parsed. */
  body: unknown;
  /** Whether a plain call sent a progress token (a 2025-11-25 answer is then an event stream). */
  wantsProgress: boolean;
  /** Whether the server has tasks (2025-11-25): task-augmented calls then go to them. */
  withTasks: boolean;
  authInfo: AuthInfo;
  /** Follows the token's grant while the request lives; stopped when it ends. */
  credential: CredentialWatch;
  /** A new server, as the signed-in user, for the revision the request speaks. */
  serverFor: (era: McpRequestInfo['era']) => McpServer;
}

export function mcpServing(options: { logger: Logger; bodyLimit: number }) {
  // One handler for 2026-07-28: each request's server is made by the exchange that saw its token.
  const servers = new WeakMap<Request, () => McpServer>();
  const modern = createMcpHandler(
    ({ requestInfo }) => {
      const make = requestInfo && servers.get(requestInfo);
      if (!make) throw new TypeError('An MCP request reached the handler without its server');
      return make();
    },
    {
      legacy: 'reject',
      maxRequestBodySize: options.bodyLimit,
      // A client's mistake the SDK refuses is the client's; anything else answered 500 is our own bug.
      onerror: (err) =>
        /^Rejected inbound request/.test(err.message)
          ? options.logger.debug({ err }, 'MCP request refused')
          : options.logger.error({ err }, 'MCP request failed'),
    },
  );

  return async (ctx: Context, x: McpExchange): Promise<void> => {
    const { credential } = x;
    const left = new AbortController();
    let connected: { server: McpServer; close: () => Promise<void> } | undefined;
    const end = () => {
      credential.stop();
      left.abort();
      void connected?.close();
      void connected?.server.close();
    };
    ctx.res.on('close', end);
    const messages = (Array.isArray(x.body) ? x.body : [x.body]) as Array<{ id?: unknown; method?: unknown }>;
    const requestIds = messages.flatMap((m) =>
      typeof m?.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number') ? [m.id] : [],
    );
    const serverFor = (era: McpRequestInfo['era']) => {
      const server = x.serverFor(era);
      const connect = server.connect.bind(server);
      server.connect = (transport) => {
        connected = { server, close: () => transport.close() };
        endOnRevocation({ transport, credential, requestIds, end, res: ctx.res });
        return connect(transport);
      };
      return server;
    };

    const request = new Request(new URL(ctx.originalUrl, ctx.URL.origin), {
      method: 'POST',
      headers: webHeaders(ctx.req.headers),
      signal: left.signal,
    });
    let response: Response;
    if (await isLegacyRequest(request, x.body)) {
      const server = serverFor('legacy');
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: !x.wantsProgress,
      });
      await server.connect(transport);
      // The client left while the revision was being told apart: end() ran before there was a connection.
      if (left.signal.aborted) end();
      response = await transport.handleRequest(request, {
        parsedBody: x.withTasks ? asTaskCalls(x.body) : x.body,
        authInfo: x.authInfo,
      });
    } else {
      servers.set(request, () => serverFor('modern'));
      response = await modern.fetch(request, { parsedBody: x.body, authInfo: x.authInfo });
    }
    ctx.respond = false;
    await writeResponse(ctx.res, response);
  };
}

function webHeaders(headers: NodeJS.Dict<string | string[]>): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers))
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) out.append(name, v);
  return out;
}

/** Writes a web Response (a JSON body, or an event stream as it comes) to Node's response. */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  try {
    for await (const chunk of response.body) res.write(chunk);
    res.end();
  } catch {
    // The stream was cut (the request ended, or its grant was revoked): the connection goes with it.
    res.destroy();
  }
}
