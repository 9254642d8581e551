// `GET /`: what this service is and where to go from here (the dashboard, the API reference, the
// MCP endpoint's set-up, capture URLs). The OAuth metadata's resource_documentation points at #mcp.
import Router from '@koa/router';
import type { Config } from '../../lib/config.ts';
import { html, sendPage } from './html.ts';

export function homeRoutes(config: Pick<Config, 'baseUrl' | 'captureBaseUrl'>): Router {
  const router = new Router();
  const base = config.baseUrl;
  router.get('/', (ctx) => {
    sendPage(
      ctx,
      'netops',
      html`<h1>netops</h1>
        <p>Network tools, webhook capture and load testing, as a REST API, an MCP server and a dashboard.</p>
        <ul>
          <li><a href="/dashboard">Dashboard\
</a>: your API keys, webhooks with their live captures, load tests, connected apps.</li>
          <li><a href="/docs">API reference</a> (<a href="/api/v1/openapi.json">OpenAPI document</a>): every \
<code>/api/v1</code> endpoint; send your key as <code>X-API-Key</code>.</li>
          <li>Capture URLs: <code>${config.captureBaseUrl}/webhook/&lt;webhook_id&gt;</code> take any method, no key.\
</li>
        </ul>
        <section id="mcp" aria-labelledby="mcp-title">
          <h2 id="mcp-title">MCP</h2>
          <p>The MCP endpoint is <code>${base}/mcp\
</code> (Streamable HTTP). Add it to an MCP client as a remote server: the client finds the
          sign-in by itself (OAuth 2.1: it registers, you sign in with your email and password and approve, it gets a \
token). Scopes:
          <code>mcp:tools</code> for every tool, <code>mcp:read\
</code> for the read-only ones. Apps you connected are listed, and can be
          disconnected, under <a href="/dashboard/connected-apps">Connected apps</a>.</p>
          <p>From a terminal: <code>npm run --silent mcp-token -- --url ${base}/mcp --email you@example.com\
</code> (password in <code>MCP_PASSWORD</code>) prints a token and an MCP Inspector command.</p>
        </section>`,
    );
  });
  return router;
}
