// What every MCP tool shares: its hints (and the scope a call needs, which follows from them), and
// one wrapper that spends the user's plan quota (the same counters as REST) and turns errors into
// results a model can act on, never a protocol error.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import type { Plan } from '../../lib/plans.ts';
import type { QuotaService } from '../services/quota.ts';

const LOOKUP = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true } as const;
const READ_OWN = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** The hints of every tool, set truthfully; the scope a call needs follows from readOnlyHint. */
export const TOOL_HINTS = {
  dns_lookup: LOOKUP,
  ip_info: LOOKUP,
  http_headers: LOOKUP,
  webhook_create: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  webhook_list: READ_OWN,
  webhook_requests: READ_OWN,
  webhook_delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  discover_site_pages: LOOKUP,
  audit_page_design: LOOKUP,
  remove_video_watermark: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  watermark_status: READ_OWN,
} as const;
export type ToolName = keyof typeof TOOL_HINTS;

/** The scopes that allow calling `tool`: read-only tools take either scope, the others only `mcp:tools`. */
export function scopesAllowing(tool: string): readonly string[] {
  const hints = (TOOL_HINTS as Record<string, { readOnlyHint: boolean }>)[tool];
  return hints?.readOnlyHint ? ['mcp:read', 'mcp:tools'] : ['mcp:tools'];
}

export type Run = <T extends Record<string, unknown>>(name: string, body: () => Promise<T>, summary: (out: T) => string) => Promise<CallToolResult>;

/** Runs a tool body under the user's rate limit; errors become results a model can read. */
export function toolRunner(quota: QuotaService, account: { userId: number; plan: Plan }, logger: Logger): Run {
  return async (name, body, summary) => {
    const verdict = await quota.spend(account);
    if (!verdict.allowed) return failure(`Rate limit of the ${account.plan} plan reached: retry in ${verdict.retryAfterSeconds} s.`);
    try {
      const out = await body();
      return { content: [{ type: 'text', text: summary(out) }], structuredContent: out };
    } catch (err) {
      if (err instanceof AppError && err.isCallersFault) return failure(err.message);
      if (err instanceof AppError) return failure(`${err.message} (an upstream failed or timed out: trying again later may work)`);
      logger.error({ err, tool: name }, 'MCP tool failed');
      return failure(`The ${name} tool failed on our side; this is not caused by the arguments.`);
    }
  };
}

function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
