// Every MCP tool built from its operation's contract shows the model what the operation takes: the same
// property names, JSON types, texts and required list as the operation's schema (with the texts the
// contract keeps for clients). The tools not yet built so are named below, and the list only shrinks.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createMcpServer, type McpToolDeps } from '../../../../api/mcp/tools.ts';
import { bulkBody } from '../../../../contract/domains.ts';
import { listQuery, verifyTargetBody } from '../../../../contract/load/load-tests.ts';
import { auditInput, discoverInput } from '../../../../contract/site.ts';
import { dnsQuery, ipArgs, urlInput } from '../../../../contract/lookups.ts';
import { fieldTexts } from '../../../../contract/validate.ts';
import { settingFields } from '../../../../contract/webhooks/webhook-fields.ts';
import {
  deleteBody,
  diffQuery,
  replayBody,
  requestsArgs,
  triggerBody,
  updateBody,
  waitQuery,
} from '../../../../contract/webhooks/webhooks.ts';

/** Each migrated tool, and the contract its input is: the operation's schema, or the tool's own in contract/. */
const CONTRACT: Record<string, z.ZodType> = {
  dns_lookup: dnsQuery,
  ip_info: z.object(ipArgs),
  http_headers: urlInput,
  webhook_create: z.object(settingFields).strict(),
  webhook_update: updateBody,
  webhook_list: z.object({}).strict(),
  webhook_requests: requestsArgs,
  webhook_replay: replayBody,
  webhook_delete: deleteBody,
  webhook_wait_for_request: waitQuery,
  webhook_diff: diffQuery,
  webhook_trigger: triggerBody,
  domain_check_bulk: bulkBody,
  discover_site_pages: discoverInput,
  audit_page_design: auditInput,
  load_test_list: listQuery,
  load_test_verify_target: verifyTargetBody,
  load_test_start: z.object({}), // checked by test/unit/contract/load/load-test-start.test.ts
};
/** Tools whose inputs are still declared beside the tool (step 2 of the contract, issue 64). */
const NOT_YET = [
  'load_test_results',
  'load_test_status',
  'load_test_stop',
  'remove_video_watermark',
  'watermark_status',
];

type Props = Record<string, { type?: unknown; description?: string; anyOf?: Array<{ type?: unknown }> }>;
type Schema = { properties?: Props; required?: string[] };

/** What a client reads of each property: its JSON type(s) and its text. */
function outline(schema: Schema) {
  const props = Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const types = p.type ?? p.anyOf?.map((a) => a.type);
    return [name, { types, description: p.description }] as const;
  });
  return { properties: Object.fromEntries(props), required: [...(schema.required ?? [])].sort() };
}

async function listTools() {
  // Listing touches no service: the tools are registered, never called.
  const none = {} as never;
  const deps = {
    lookups: none,
    webhooks: { trigger: () => none },
    webhookReplays: none,
    webhookWaits: none,
    quota: none,
    tasks: none,
    loadTests: none,
    targets: none,
    domains: none,
    site: none,
    video: none,
    logger: none,
  } as unknown as McpToolDeps;
  const server = createMcpServer(deps, { userId: 1, plan: 'free' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'tool-inputs-test', version: '1' });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  await client.close();
  return tools;
}

describe("MCP tools' inputs", async () => {
  const tools = await listTools();

  it('every tool is either built from its contract or named as not yet', () => {
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual([...Object.keys(CONTRACT), ...NOT_YET].sort());
  });

  it.each(Object.keys(CONTRACT).filter((n) => n !== 'load_test_start'))('%s shows its contract', (name) => {
    const tool = tools.find((t) => t.name === name)!;
    const contract = z.toJSONSchema(CONTRACT[name]!, { io: 'input', metadata: fieldTexts }) as Schema;
    expect(outline(tool.inputSchema as Schema)).toEqual(outline(contract));
    expect((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties).toBe(false);
  });
});
