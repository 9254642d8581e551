// The MCP tools through the SDK's own client, over its in-memory transport, against the real
// database, store, DNS fixture and SSRF guard (the HTTP endpoint and its OAuth: mcp-oauth.test.ts).
import { looseObjectsOf } from '../support/json-schema.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/connect.ts';
import { upsertUser } from '../../db/users.ts';
import { createMcpServer, type McpToolDeps } from '../../api/mcp/tools.ts';
import { lookupService } from '../../api/services/lookups.ts';
import { quotaService } from '../../api/services/quota.ts';
import { webhookService } from '../../api/services/webhooks/webhooks.ts';
import { loadConfig } from '../../lib/config.ts';
import { MemoryKvStore } from '../../lib/kv/index.ts';
import { createLogger } from '../../lib/log.ts';
import { startDnsServer, type DnsFixture } from '../fixtures/dns-server.ts';
import { freshWindow } from '../support/client.ts';
import { streamService } from '../../api/services/streams.ts';
import { tempDir } from '../support/processes.ts';

describe('MCP tools', () => {
  let database: DatabaseHandle;
  let dns: DnsFixture;
  let deps: McpToolDeps;
  const kv = new MemoryKvStore();

  beforeAll(async () => {
    dns = await startDnsServer();
    database = await openDatabase({ databaseUrl: undefined, dataDir: await tempDir('mcp-tools') });
    const config = loadConfig({
      DNS_SERVERS: dns.address,
      NETWORK_ALLOW: '127.0.0.1/32',
      BASE_URL: 'https://tools.example.test',
    });
    deps = {
      lookups: lookupService({ config }),
      webhooks: webhookService({ db: database.db, baseUrl: config.baseUrl }),
      quota: quotaService({ kv }),
      streams: streamService({ kv }),
      logger: createLogger('silent'),
    };
  });
  afterAll(async () => {
    await database?.close();
    await dns?.close();
  });

  async function connect(email: string, plan: 'free' | 'pro' | 'enterprise' = 'enterprise') {
    const user = await upsertUser(database.db, email, plan);
    const server = createMcpServer(deps, { userId: user.id, plan });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    return client;
  }

  it('lists its tools with titles, descriptions, schemas and truthful annotations', async () => {
    const client = await connect('mcp-list@example.test');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'dns_lookup',
      'http_headers',
      'ip_info',
      'webhook_create',
      'webhook_delete',
      'webhook_diff',
      'webhook_list',
      'webhook_requests',
      'webhook_update',
    ]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      expect(t.description!.length, t.name).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
      // Every tool refuses arguments it does not know, inside nested objects too (a typo is never dropped silently).
      expect(looseObjectsOf(t.inputSchema), t.name).toEqual([]);
      expect(t.outputSchema?.type).toBe('object');
    }
    for (const name of ['dns_lookup', 'ip_info', 'http_headers'])
      expect(byName[name]!.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        openWorldHint: true,
      });
    expect(byName.webhook_delete!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(byName.webhook_create!.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(byName.dns_lookup!.inputSchema.required).toEqual(['domain']);
    await client.close();
  });

  it('answers the lookups with structured content and a short text', async () => {
    const client = await connect('mcp-lookups@example.test');
    const dnsResult = await client.callTool({ name: 'dns_lookup', arguments: { domain: 'example.test', type: 'MX' } });
    expect(dnsResult.isError).toBeFalsy();
    expect(dnsResult.structuredContent).toEqual({
      domain: 'example.test',
      type: 'MX',
      records: {
        MX: [
          { priority: 10, host: 'mx1.example.test' },
          { priority: 20, host: 'mx2.example.test' },
        ],
      },
    });
    expect((dnsResult.content as Array<{ text: string }>)[0]!.text).toMatch(/example\.test: MX 2/);
    const ip = await client.callTool({ name: 'ip_info', arguments: { ip: '10.1.2.3' } });
    expect(ip.structuredContent).toMatchObject({ ip: '10.1.2.3', data: { address_class: 'private', ip_version: 4 } });

    const site = http.createServer((_req, res) => res.writeHead(200, { 'x-frame-options': 'DENY' }).end('ok'));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
      const headers = await client.callTool({ name: 'http_headers', arguments: { url } });
      expect(headers.isError).toBeFalsy();
      expect(headers.structuredContent).toMatchObject({ url, http_code: 200, headers: { 'x-frame-options': 'DENY' } });
    } finally {
      site.close();
    }
    await client.close();
  });

  it('returns tool errors a model can act on: bad arguments, unknown domains, SSRF refusals', async () => {
    const client = await connect('mcp-errors@example.test');
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['dns_lookup', { domain: 'https://example.test/' }, /domain must be a domain name, not a URL/],
      ['dns_lookup', { domain: 'nope.example.test' }, /does not exist \(NXDOMAIN\)/],
      ['ip_info', { ip: 'not-an-ip' }, /ip: must be an IPv4 or IPv6 address/],
      ['http_headers', { url: 'http://127.0.0.2:9/' }, /target not allowed/],
      ['http_headers', { url: 'http://169.254.169.254/latest/meta-data/' }, /target not allowed/],
      [
        'dns_lookup',
        { domian: 'example.test' },
        new RegExp(
          'Invalid arguments for tool dns_lookup: domain: .*, ' +
            'domian: is not an argument of this tool \\(did you mean domain\\?\\)$',
        ),
      ],
      ['webhook_list', { all: true }, /all: is not an argument of this tool \(a typo\?\)$/],
      [
        'webhook_requests',
        { webhook_id: 'x', methd: 'POST' },
        /methd: is not an argument of this tool \(did you mean method\?\)$/,
      ],
      [
        'webhook_update',
        { webhook_id: 'x', retention: { max_request: 5 } },
        /retention: max_request: is not an argument of this tool \(did you mean max_requests\?\)$/,
      ],
    ];
    for (const [name, args, pattern] of cases) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(pattern);
    }
    await client.close();
  });

  it('keeps webhooks per user: create, list, read, delete; another user gets an error and nothing else', async () => {
    const owner = await connect('mcp-owner@example.test');
    const other = await connect('mcp-other@example.test');
    // Listed first, the client checks every answer's structured content against the tool's output schema.
    await owner.listTools();
    const created = (await owner.callTool({ name: 'webhook_create', arguments: {} })).structuredContent as {
      webhook_id: string;
      webhook_url: string;
    };
    expect(created.webhook_url).toBe(`https://tools.example.test/webhook/${created.webhook_id}`);
    const response = { status: 202, headers: { 'X-Seen': 'yes' }, body: 'ok', delay_ms: 0 };
    const updated = await owner.callTool({
      name: 'webhook_update',
      arguments: { webhook_id: created.webhook_id, response, retention: { max_requests: 50 } },
    });
    expect(updated.isError).toBeFalsy();
    expect(updated.structuredContent).toMatchObject({ webhook_id: created.webhook_id, response });
    const listed = (await owner.callTool({ name: 'webhook_list', arguments: {} })).structuredContent as {
      total: number;
      webhooks: Array<{ webhook_id: string; request_count: number }>;
    };
    expect(listed.webhooks.map((w) => w.webhook_id)).toEqual([created.webhook_id]);
    expect(
      (await owner.callTool({ name: 'webhook_requests', arguments: { webhook_id: created.webhook_id } }))
        .structuredContent,
    ).toEqual({ webhook_id: created.webhook_id, total: 0, count: 0, requests: [] });

    const foreign = await other.callTool({ name: 'webhook_requests', arguments: { webhook_id: created.webhook_id } });
    expect(foreign.isError).toBe(true);
    expect(foreign.structuredContent).toBeUndefined();
    expect((foreign.content as Array<{ text: string }>)[0]!.text).toBe(`No webhook ${created.webhook_id} among yours`);
    expect(
      (await other.callTool({ name: 'webhook_delete', arguments: { webhook_id: created.webhook_id } })).isError,
    ).toBe(true);
    expect(
      ((await other.callTool({ name: 'webhook_list', arguments: {} })).structuredContent as { total: number }).total,
    ).toBe(0);

    expect(
      (await owner.callTool({ name: 'webhook_delete', arguments: { webhook_id: created.webhook_id } }))
        .structuredContent,
    ).toMatchObject({ webhook_id: created.webhook_id });
    expect(
      (await owner.callTool({ name: 'webhook_requests', arguments: { webhook_id: created.webhook_id } })).isError,
    ).toBe(true);
    await Promise.all([owner.close(), other.close()]);
  });

  it(
    "applies the user's plan limits: " + "the free plan's 11th call in a minute is an error saying when to retry",
    async () => {
      const client = await connect('mcp-free@example.test', 'free');
      await freshWindow();
      for (let i = 0; i < 10; i++)
        expect((await client.callTool({ name: 'webhook_list', arguments: {} })).isError, `call ${i + 1}`).toBeFalsy();
      const limited = await client.callTool({ name: 'webhook_list', arguments: {} });
      expect(limited.isError).toBe(true);
      expect((limited.content as Array<{ text: string }>)[0]!.text).toMatch(
        /Rate limit of the free plan reached \(10 requests per minute\); retry after \d+ s/,
      );
      await client.close();
    },
  );
});
