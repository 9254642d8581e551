// Every MCP tool is built from its operation's contract. It shows the model what the operation takes:
// the same property names, JSON types, texts and required list as the operation's schema (with the
// texts the contract keeps for clients). And what it answers is the operation's answer as the contract
// declares it (without `success`, open to fields it does not name), or the tool's own answer declared
// in contract/ where REST answers otherwise.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createMcpServer, type McpToolDeps } from '../../../../api/mcp/tools.ts';
import { bulkBody } from '../../../../contract/domains.ts';
import { listQuery, testIdParams, verifyTargetBody } from '../../../../contract/load/load-tests.ts';
import { auditInput, discoverInput } from '../../../../contract/site.ts';
import { dnsQuery, ipArgs, urlInput } from '../../../../contract/lookups.ts';
import * as R from '../../../../contract/responses.ts';
import { bulkCheckResult } from '../../../../contract/responses-domains.ts';
import * as L from '../../../../contract/load/responses-load-tests.ts';
import * as W from '../../../../contract/webhooks/responses-webhooks.ts';
import { fieldTexts } from '../../../../contract/validate.ts';
import { jobIdParams, videoJobToolAnswer, videoJobToolFields, videoJobToolStart } from '../../../../contract/video.ts';
import { webhookTriggerResult } from '../../../../contract/webhooks/webhook-trigger.ts';
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

/** Each tool, and the contract its input is: the operation's schema, or the tool's own in contract/. */
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
  load_test_status: testIdParams,
  load_test_stop: testIdParams,
  load_test_results: testIdParams,
  remove_video_watermark: z.object(videoJobToolFields),
  watermark_status: jobIdParams,
};

/** Each tool, and the contract its answer is: the operation's answer, or the tool's own in contract/. */
const ANSWER: Record<string, z.ZodObject> = {
  dns_lookup: R.dnsLookupResult,
  ip_info: R.ipInfoResult,
  http_headers: R.httpHeadersResult,
  webhook_create: W.webhookCreateResult,
  webhook_update: W.webhookUpdateResult,
  webhook_list: W.webhookListResult.shape.data,
  webhook_requests: W.webhookRequestsToolResult,
  webhook_replay: W.webhookReplayResult,
  webhook_delete: W.webhookDeleteResult,
  webhook_wait_for_request: W.webhookWaitResult,
  webhook_diff: W.webhookDiffResult,
  webhook_trigger: webhookTriggerResult,
  domain_check_bulk: bulkCheckResult,
  discover_site_pages: R.siteDiscoverResult,
  audit_page_design: R.siteAuditResult,
  load_test_list: L.loadTestListResult,
  load_test_verify_target: L.targetVerificationResult,
  load_test_start: L.loadTestResultsAnswer,
  load_test_status: L.loadTestStatusAnswer,
  load_test_stop: L.loadTestStopResult,
  load_test_results: L.loadTestResultsAnswer,
  remove_video_watermark: videoJobToolStart,
  watermark_status: videoJobToolAnswer,
};

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

/**
 * A JSON Schema as a client checks an answer with it: an object open to unnamed fields reads the same
 * as one that says nothing of them (the OpenAPI document's view), and `success` is REST's alone.
 */
function asAnswered(schema: unknown, top = true): unknown {
  if (Array.isArray(schema)) return schema.map((s) => asAnswered(s, false));
  if (schema === null || typeof schema !== 'object') return schema;
  const { $schema: _s, additionalProperties, ...rest } = schema as Record<string, unknown>;
  const open = additionalProperties === undefined || JSON.stringify(additionalProperties) === '{}';
  const out = Object.fromEntries(
    Object.entries(open ? rest : { ...rest, additionalProperties }).map(([k, v]) => [
      k,
      k === 'properties'
        ? Object.fromEntries(Object.entries(v as object).map(([n, p]) => [n, asAnswered(p, false)]))
        : asAnswered(v, false),
    ]),
  );
  if (top && out.properties) {
    const { success: _ok, ...properties } = out.properties as Record<string, unknown>;
    out.properties = properties;
    out.required = ((out.required as string[] | undefined) ?? []).filter((r) => r !== 'success');
  }
  return out;
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

  it('every tool is built from its contract', () => {
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(Object.keys(CONTRACT).sort());
    expect(Object.keys(ANSWER).sort()).toEqual(names);
  });

  it.each(Object.keys(CONTRACT).filter((n) => n !== 'load_test_start'))('%s shows its contract', (name) => {
    const tool = tools.find((t) => t.name === name)!;
    const contract = z.toJSONSchema(CONTRACT[name]!, { io: 'input', metadata: fieldTexts }) as Schema;
    expect(outline(tool.inputSchema as Schema)).toEqual(outline(contract));
    expect((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties).toBe(false);
  });
});

describe("MCP tools' answers", async () => {
  const tools = await listTools();

  it.each(Object.keys(ANSWER))('%s answers its contract', (name) => {
    const tool = tools.find((t) => t.name === name)!;
    const contract = z.toJSONSchema(ANSWER[name]!, { io: 'input', target: 'draft-2020-12' });
    expect(asAnswered(tool.outputSchema)).toEqual(asAnswered(contract));
  });

  it('shows every answer open to fields the contract does not name, at every level', () => {
    const closed = tools.filter((t) => JSON.stringify(t.outputSchema).includes('"additionalProperties":false'));
    expect(closed.map((t) => t.name)).toEqual([]);
  });
});
