// Both MCP protocol revisions on the one endpoint of one running service: the 2.x SDK client at
// 2026-07-28 (server/discover, the `_meta` envelope on each request, no initialize, no session) and
// the 1.x SDK client at 2025-11-25 (initialize, then calls), each signed in through the real OAuth
// forms, list the same tools and call them as the same account: the same answers, the same error
// results, the same plan limit counted across both, the same door (401, 403 insufficient_scope, 405).
import { describe, expect, it } from 'vitest';
import { freshWindow, targets } from '../support/client.ts';
import type { Target } from '../support/global-setup.ts';
import { connectedClient, connectedModernClient, mcpPost, newUser } from '../support/mcp.ts';

const MODERN = '2026-07-28';

/** A hand-made 2026-07-28 request: the envelope in `_meta` and the standard headers beside it. */
const modernRpc = (target: Target, token: string, method: string, params: Record<string, unknown>) =>
  mcpPost(
    target,
    token || null,
    {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'curl', version: '1' },
        },
      },
    },
    {
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    },
  );

type Called = { isError?: boolean; content?: unknown; structuredContent?: unknown };
const text = (r: Called) => (r.content as Array<{ text: string }>)[0]!.text;

for (const target of targets()) {
  describe(`MCP on both protocol revisions (${target.name})`, () => {
    it('a 2026-07-28 client and a 2025-11-25 client list the same tools and call them on one endpoint', {
      timeout: 90_000,
    }, async () => {
      const { email } = await newUser(target);
      const modern = (await connectedModernClient(target, email)).client;
      const legacy = (await connectedClient(target, email)).client;
      try {
        expect(modern.getProtocolEra()).toBe('modern');
        expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
        // 2025-11-25's tasks capability is not 2026-07-28's: there, long tools are tasks by the tasks
        // extension, for a request that declares it (mcp-tasks-ext.test.ts).
        expect(modern.getServerCapabilities()).toMatchObject({ tools: {} });
        expect(modern.getServerCapabilities()?.tasks).toBeUndefined();
        expect(modern.getServerCapabilities()?.extensions).toMatchObject({ 'io.modelcontextprotocol/tasks': {} });
        expect(legacy.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });

        const modernTools = (await modern.listTools()).tools;
        const legacyTools = (await legacy.listTools()).tools;
        const names = legacyTools.map((t) => t.name).sort();
        expect(names).toHaveLength(23);
        expect(modernTools.map((t) => t.name).sort()).toEqual(names);
        const byName = Object.fromEntries(legacyTools.map((t) => [t.name, t]));
        for (const tool of modernTools) {
          const other = byName[tool.name]!;
          expect(tool.inputSchema, tool.name).toEqual(other.inputSchema);
          expect(tool.outputSchema, tool.name).toEqual(other.outputSchema);
          expect(tool.annotations, tool.name).toEqual(other.annotations);
          expect(tool.description, tool.name).toBe(other.description);
          expect((tool as { execution?: unknown }).execution, tool.name).toBeUndefined();
        }
        expect(byName.load_test_start!.execution).toEqual({ taskSupport: 'optional' });

        // A lookup answers alike.
        const args = { domain: 'example.test', type: 'A' };
        const [m, l] = [
          await modern.callTool({ name: 'dns_lookup', arguments: args }),
          await legacy.callTool({ name: 'dns_lookup', arguments: args }),
        ];
        expect(m.isError, JSON.stringify(m)).toBeFalsy();
        expect(m.structuredContent).toEqual(l.structuredContent);
        expect(m.content).toEqual(l.content);

        // A webhook made on one revision is the account's on the other: no session holds anything.
        const created = await modern.callTool({ name: 'webhook_create', arguments: {} });
        expect(created.isError, JSON.stringify(created)).toBeFalsy();
        const id = (created.structuredContent as { webhook_id: string }).webhook_id;
        for (const client of [modern, legacy]) {
          const listed = (await client.callTool({ name: 'webhook_list', arguments: {} })) as Called;
          expect((listed.structuredContent as { webhooks: Array<{ webhook_id: string }> }).webhooks).toEqual([
            expect.objectContaining({ webhook_id: id }),
          ]);
        }

        // Errors are the same results on both: an unknown webhook, an argument that is not the tool's.
        for (const [name, args] of [
          ['webhook_requests', { webhook_id: 'AAAAAAAAAAAAAAAAAAAAAA' }],
          ['webhook_requests', { webhook_id: id, methd: 'POST' }],
        ] as const) {
          const [m, l] = [
            (await modern.callTool({ name, arguments: args })) as Called,
            (await legacy.callTool({ name, arguments: args })) as Called,
          ];
          expect([m.isError, l.isError]).toEqual([true, true]);
          expect(m.content).toEqual(l.content);
          expect(m.structuredContent).toBeUndefined();
        }
        expect(
          text(
            (await modern.callTool({
              name: 'webhook_requests',
              arguments: { webhook_id: id, methd: 'POST' },
            })) as Called,
          ),
        ).toMatch(/methd: is not an argument of this tool \(did you mean method\?\)$/);

        // A job tool called without the tasks extension declared: a 2026-07-28 call answers when its job
        // (a Temporal workflow) ends.
        const stamp = `${target.name}-${Date.now().toString(36)}`;
        const bulk = (await modern.callTool({
          name: 'domain_check_bulk',
          arguments: { domains: [`free-${stamp}.com`, 'example.com'] },
        })) as Called;
        expect(bulk.isError, JSON.stringify(bulk)).toBeFalsy();
        expect(bulk.structuredContent).toMatchObject({ total: 2, mode: 'fast' });
      } finally {
        await Promise.all([modern.close(), legacy.close()]);
      }
    });

    it(
      "counts the plan's limit per account across both revisions: " + "the free plan's 11th call is refused on either",
      async () => {
        const { email } = await newUser(target, 'free');
        const modern = (await connectedModernClient(target, email)).client;
        const legacy = (await connectedClient(target, email)).client;
        try {
          await freshWindow();
          for (let i = 0; i < 10; i++) {
            const client = i % 2 ? legacy : modern;
            expect(
              (await client.callTool({ name: 'webhook_list', arguments: {} })).isError,
              `call ${i + 1}`,
            ).toBeFalsy();
          }
          for (const client of [modern, legacy]) {
            const limited = (await client.callTool({ name: 'webhook_list', arguments: {} })) as Called;
            expect(limited.isError).toBe(true);
            expect(text(limited)).toMatch(
              /^Rate limit of the free plan reached \(10 requests per minute\); retry after \d+ s$/,
            );
          }
        } finally {
          await Promise.all([modern.close(), legacy.close()]);
        }
      },
    );

    it('keeps one door for 2026-07-28 requests: 401 without a token, 403 outside the scope, 405 for GET', async () => {
      const { email } = await newUser(target);
      const { client, oauth } = await connectedModernClient(target, email, { scope: 'mcp:read' });
      await client.close();
      const token = oauth.tokens()!.access_token;

      const anonymous = await modernRpc(target, '', 'tools/list', {});
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toContain(
        `resource_metadata="${target.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
      );

      const read = await modernRpc(target, token, 'tools/call', { name: 'webhook_list', arguments: {} });
      expect(read.status).toBe(200);
      const answer = (await read.json()) as { result: Called & { resultType?: string } };
      expect(answer.result).toMatchObject({ resultType: 'complete', structuredContent: { total: 0, webhooks: [] } });

      const write = await modernRpc(target, token, 'tools/call', { name: 'webhook_create', arguments: {} });
      expect(write.status).toBe(403);
      expect(write.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
      expect(write.headers.get('www-authenticate')).toMatch(/scope="mcp:tools"/);

      const get = await fetch(`${target.baseUrl}/mcp`, {
        headers: { authorization: `Bearer ${token}`, 'mcp-protocol-version': MODERN },
      });
      expect(get.status).toBe(405);
      expect(get.headers.get('mcp-session-id')).toBeNull();
    });
  });
}
