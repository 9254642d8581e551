// MCP tool of the bulk domain check: up to 100 names, a job on the network pool (a task when the
// client asks for one), answered as POST /api/v1/network/domains/check answers.
import type { McpServer } from '@modelcontextprotocol/server';
import { DOMAIN_CHECK_KIND } from '../../../lib/jobs/domain-check.ts';
import type { Plan } from '../../../lib/plans.ts';
import { BULK_MAX_DOMAINS, bulkBody } from '../../../contract/domains.ts';
import type { DomainService } from '../../services/domains.ts';
import { bulkCheckResult } from '../../../contract/responses-domains.ts';
import { toolInput, toolOutput, validate } from '../../../contract/validate.ts';
import { failure, TOOL_HINTS, toolResult } from '../run.ts';
import { registerJobTool, type JobToolDeps, type TaskPresenter } from './job-tools.ts';

export function registerDomainTools(
  server: McpServer,
  deps: JobToolDeps & { domains: DomainService },
  account: { userId: number; plan: Plan },
): Record<string, TaskPresenter> {
  const present: TaskPresenter = (value, task) => {
    if (value.success !== true)
      return failure(
        `The bulk check ${task.status === 'cancelled' ? 'was cancelled' : `failed: ${String(value.error)}`}.`,
      );
    const { success: _s, ...out } = value as {
      success: true;
      total: number;
      results: Record<string, { success: boolean; available?: boolean | null }>;
    };
    const entries = Object.values(out.results);
    const count = (f: (e: (typeof entries)[number]) => boolean) => entries.filter(f).length;
    return toolResult(
      out,
      `${out.total} name(s): ${count((e) => e.available === true)} available, ` +
        `${count((e) => e.available === false)} taken, ` +
        `${count((e) => e.success && e.available === null)} unknown, ${count((e) => !e.success)} ` +
        "not checked. Each name's answer is in structuredContent.results.",
    );
  };

  registerJobTool(
    server,
    'domain_check_bulk',
    {
      title: 'Check many domain names',
      description:
        `Whether up to ${BULK_MAX_DOMAINS} domain names can be registered, with prices (the same ` +
        'as POST /api/v1/network/domains/check). mode "fast" asks DNS; "full" asks the registries ' +
        '(RDAP, WHOIS), slower and politely paced. Unknown answers are null with low confidence, ' +
        'never a guess. As a task (tools/call with "task") it answers at once; as a plain call it ' +
        'waits for every name, with progress every 5 seconds when the call carries a progressToken.',
      inputSchema: toolInput(bulkBody.shape),
      outputSchema: toolOutput(bulkCheckResult),
      annotations: { title: 'Check many domain names', ...TOOL_HINTS.domain_check_bulk },
    },
    deps,
    account,
    (args) => deps.domains.startBulk(validate(bulkBody, args, 'arguments'), account.userId),
  );
  return { [DOMAIN_CHECK_KIND]: present };
}
