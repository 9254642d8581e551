// What every MCP tool shares: its hints (and the scope a call needs, which follows from them), and
// one wrapper that spends the user's plan quota (the same counters as REST) and turns errors into
// results a model can act on, never a protocol error.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { AppError } from '../../lib/errors.ts';
import { temporalOutage } from '../../lib/temporal/jobs.ts';
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
  webhook_update: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  webhook_replay: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  webhook_wait_for_request: READ_OWN,
  webhook_diff: READ_OWN,
  webhook_trigger: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  discover_site_pages: LOOKUP,
  audit_page_design: LOOKUP,
  domain_check_bulk: LOOKUP,
  load_test_start: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  load_test_status: READ_OWN,
  load_test_stop: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  load_test_results: READ_OWN,
  load_test_list: READ_OWN,
  load_test_verify_target: LOOKUP,
  remove_video_watermark: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  watermark_status: READ_OWN,
} as const;
export type ToolName = keyof typeof TOOL_HINTS;

/** The scopes that allow calling `tool`: read-only tools take either scope, the others only `mcp:tools`. */
export function scopesAllowing(tool: string): readonly string[] {
  const hints = (TOOL_HINTS as Record<string, { readOnlyHint: boolean }>)[tool];
  return hints?.readOnlyHint ? ['mcp:read', 'mcp:tools'] : ['mcp:tools'];
}

export type Run = <T extends object>(
  name: string,
  body: () => Promise<T>,
  summary: (out: T) => string,
  link?: (out: T) => string,
) => Promise<CallToolResult>;

/** Results larger than this (as JSON) are offered as a link to their REST resource instead of inline text. */
export const INLINE_JSON_BYTES = 8 * 1024;

/**
 * A tool's answer: a summary in our own words, the data as JSON text too (for clients that ignore
 * structured output) or, past INLINE_JSON_BYTES and when the data has a REST resource, a
 * `resource_link` to it; always the data as `structuredContent`.
 */
export function toolResult<T extends object>(out: T, summary: string, link?: string): CallToolResult {
  const json = JSON.stringify(out);
  const twin =
    link && Buffer.byteLength(json) > INLINE_JSON_BYTES
      ? {
          type: 'resource_link' as const,
          uri: link,
          name: new URL(link).pathname.split('/').slice(-2).join('/'),
          mimeType: 'application/json',
          description: `The full answer (${Buffer.byteLength(json)} bytes of JSON): GET it with an API key`,
        }
      : { type: 'text' as const, text: json };
  // A tool's answer is a plain JSON object (an interface type has no index signature to say so).
  return { content: [{ type: 'text', text: summary }, twin], structuredContent: out as Record<string, unknown> };
}

/** Runs a tool body under the user's rate limit; errors become results a model can read. */
export function toolRunner(quota: QuotaService, account: { userId: number; plan: Plan }, logger: Logger): Run {
  return async (name, body, summary, link) => {
    const verdict = await quota.spend(account);
    if (!verdict.allowed) return failure(quota.refusal(account.plan, verdict).message);
    try {
      const out = await body();
      return toolResult(out, summary(out), link?.(out));
    } catch (err) {
      return errorResult(err, name, logger);
    }
  };
}

/** An error as a result a model can act on: the caller's fault as said, ours without details (logged). */
export function errorResult(thrown: unknown, tool: string, logger: Logger): CallToolResult {
  const err = temporalOutage(thrown) ?? thrown;
  if (err instanceof AppError && err.isCallersFault) return failure(err.message);
  if (err instanceof AppError)
    return failure(`${err.message} (an upstream failed or timed out: trying again later may work)`);
  logger.error({ err, tool }, 'MCP tool failed');
  return failure(`The ${tool} tool failed on our side; this is not caused by the arguments.`);
}

export function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
