// The resources' cost to the plan: a resources/list (which lists every template) spends one request, and
// each resources/list spends its own, however many one HTTP request carries.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { RATE_LIMITED, registerResources, type ResourceDeps } from '../../../../api/mcp/resources.ts';
import { quotaService } from '../../../../api/services/quota.ts';
import { MemoryKvStore } from '../../../../lib/kv/index.ts';
import { createLogger } from '../../../../lib/log.ts';

describe('MCP resources and the plan', () => {
  it('spends one request a listing, each listing its own, and refuses past the limit with when to retry', async () => {
    // A clock that stands still: every call in one minute.
    const quota = quotaService({ kv: new MemoryKvStore(() => Date.UTC(2026, 11, 1, 10, 0, 5)) });
    const account = { userId: 7, plan: 'free' as const }; // 10 requests a minute
    const webhooks = { list: async () => ({ webhooks: [] }) } as unknown as ResourceDeps['webhooks'];
    const server = new McpServer({ name: 'resources-test', version: '1' });
    registerResources(server, { webhooks, quota, logger: createLogger('silent') }, account);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'resources-test', version: '1' });
    await client.connect(clientSide);

    // All on one server, as the requests of one HTTP request (a batch) are.
    for (let i = 0; i < 3; i++) expect((await client.listResources()).resources).toEqual([]);
    expect((await quota.usage(account))[0]).toMatchObject({ remaining: 7 });
    for (let i = 0; i < 7; i++) await client.listResources();
    const refused = await client.listResources().catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: RATE_LIMITED, data: { retry_after_seconds: expect.any(Number) } });
    expect(String((refused as Error).message)).toMatch(/free plan reached \(10 requests per minute\)/);
  });
});
