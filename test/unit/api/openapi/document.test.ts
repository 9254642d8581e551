// The OpenAPI document covers exactly the routes the routers serve, is well formed, and is the one
// published (test/fixtures/openapi.json) unless a change means to change it.
import fs from 'node:fs';
import path from 'node:path';
import { looseObjectsOf } from '../../../support/json-schema.ts';
import { describe, expect, it } from 'vitest';
import type Router from '@koa/router';
import { buildOpenApi } from '../../../../api/openapi/document.ts';
import { OPERATIONS } from '../../../../contract/index.ts';
import { createServices } from '../../../../api/services/index.ts';
import { v1Routers } from '../../../../api/routes/index.ts';
import { loadConfig } from '../../../../lib/config.ts';
import { MemoryKvStore } from '../../../../lib/kv/index.ts';
import { ROOT } from '../../../support/processes.ts';

describe('OpenAPI document', () => {
  const deps = {
    config: loadConfig({ BASE_URL: 'https://api.example.test' }),
    kv: new MemoryKvStore(),
    db: {},
    temporal: {},
    logger: {},
    blobs: {},
    codec: {},
    temporalUiUrl: undefined,
  } as never;
  const services = createServices(deps);
  const routers: Array<Router<any>> = v1Routers(services);
  const served = routers
    .flatMap((r) =>
      r.stack.flatMap((layer) =>
        layer.methods
          .filter((m) => m !== 'HEAD')
          .map((m) => `${m.toLowerCase()} ${String(layer.path).replace(/:([a-z_]+)/g, '{$1}')}`),
      ),
    )
    .sort();
  const documented = OPERATIONS.map((op) => `${op.method} ${op.path}`).sort();

  it('documents every route the API serves under /api/v1, and nothing else', () => {
    expect(served.length).toBeGreaterThan(20);
    expect(documented).toEqual(served);
  });

  it('refuses unknown keys in every JSON body, at its top and inside it (additionalProperties false)', () => {
    const doc = buildOpenApi('https://api.example.test') as any;
    const loose: string[] = [];
    let bodies = 0;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        if (!schema) continue;
        bodies += 1;
        loose.push(...looseObjectsOf(schema, `${method} ${path} `));
      }
    }
    expect(bodies).toBeGreaterThanOrEqual(10);
    expect(loose).toEqual([]);
  });

  it('is OpenAPI 3.1 with both ways to send the key, and errors on every operation', () => {
    const doc = buildOpenApi('https://api.example.test') as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes).toEqual({
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      BearerApiKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        expect(op.responses['401'], `${method} ${path}`).toBeDefined();
        expect(op.responses['429'], `${method} ${path}`).toBeDefined();
        // Any operation answers 503 while a server it needs is away (docs/outages.md), or no workflows worker
        // answers a job's state query (a video job, a pipeline check).
        expect(op.responses['503'], `${method} ${path}`).toBeDefined();
        for (const p of (op.parameters ?? []).filter((x: any) => x.in === 'path'))
          expect(path).toContain(`{${p.name}}`);
      }
    }
    // Request schemas come from the validators: the limits are the ones enforced.
    const start = doc.paths['/api/v1/load-testing/start'].post.requestBody.content['application/json'].schema;
    expect(start.properties.concurrentUsers).toMatchObject({ minimum: 1, maximum: 10000 });
    const discover = doc.paths['/api/v1/site/discover'].post.requestBody.content['application/json'].schema;
    expect(discover.properties.limit).toMatchObject({ minimum: 1, maximum: 20 });
    expect(doc.paths['/api/v1/network/dns-lookup'].get.parameters.find((p: any) => p.name === 'domain')).toMatchObject({
      in: 'query',
      required: true,
    });
  });

  it('is the document of test/fixtures/openapi.json: a change of the contract is a change of that file too', () => {
    // A refactor leaves the published contract as it was; a change meant to change it rewrites the
    // file (UPDATE_OPENAPI=1 npx vitest run test/unit/api/openapi/document.test.ts) and shows in review.
    const file = path.join(ROOT, 'test', 'fixtures', 'openapi.json');
    const text = JSON.stringify(buildOpenApi('https://api.example.test'), null, 2);
    if (process.env.UPDATE_OPENAPI === '1') fs.writeFileSync(file, text);
    const [built, kept] = [JSON.parse(text), JSON.parse(fs.readFileSync(file, 'utf8'))];
    expect(built).toEqual(kept);
    // toEqual ignores the order of keys: the paths' is the order readers of the document see.
    expect(Object.keys(built.paths)).toEqual(Object.keys(kept.paths));
  });
});
