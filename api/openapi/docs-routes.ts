// The API's documentation: the OpenAPI document at /api/v1/openapi.json (public, like any API
// reference) and an interactive page at /docs (Swagger UI from the swagger-ui-dist package, served
// from here: no CDN).
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import Router from '@koa/router';
import type { ApiDeps } from '../deps.ts';
import { buildOpenApi } from './document.ts';
import { ownFiles } from '../pages/html.ts';

const require = createRequire(import.meta.url);
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">\
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>netops API reference</title><link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><main id="ui"><h1>netops API reference</h1>\
<p>Loading the interactive reference of <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>…</p></main>
<script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/init.js"></script></body></html>`;
const INIT =
  "window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#ui', deepLinking: true, " +
  "presets: [SwaggerUIBundle.presets.apis], layout: 'BaseLayout', persistAuthorization: false });\n";

export function docsRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const document = JSON.stringify(buildOpenApi(deps.config.baseUrl));
  const assetDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = document;
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'html';
    // Its policy names the host it was asked on: no cache keeps it for another.
    ctx.set('Cache-Control', 'no-store');
    ctx.set(
      'Content-Security-Policy',
      `default-src 'self'; script-src ${ownFiles(ctx, '/docs/')}; img-src 'self' data:; ` +
        `style-src ${ownFiles(ctx, '/docs/assets/')} 'unsafe-inline'; frame-ancestors 'none'`,
    );
    ctx.body = PAGE;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/docs/assets/:file', async (ctx) => {
    const type = ASSETS[ctx.params.file!];
    if (!type) return;
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = await fs.readFile(path.join(assetDir, ctx.params.file!));
  });
  return router;
}
