// The MCP tools: the lookups, the webhooks, the site jobs and the video jobs, acting as the signed-in user, through the
// same services, validation, SSRF guard, owner checks and rate limits as the REST endpoints. One set of
// tools for both protocol revisions (2026-07-28 and 2025-11-25, which alone has tasks); a new server per
// request (the SDK's servers are not shared across connections).
import { McpServer } from '@modelcontextprotocol/server';
import { VERSION } from '../../lib/version.ts';
import type { Plan } from '../../db/schema.ts';
import type { Logger } from '../../lib/log.ts';
import type { DomainService } from '../services/domains.ts';
import type { LoadTestService } from '../services/load-tests/load-tests.ts';
import type { LookupService } from '../services/lookups.ts';
import type { QuotaService } from '../services/quota.ts';
import type { StreamService } from '../services/streams.ts';
import { taskReadsPerMinute } from '../../lib/plans.ts';
import type { SiteService } from '../services/site.ts';
import type { VideoService } from '../services/video/video.ts';
import type { TargetVerificationService } from '../services/load-tests/target-verification.ts';
import type { TaskService } from '../services/tasks.ts';
import type { WebhookReplayService } from '../services/webhooks/webhook-replay.ts';
import type { WebhookService } from '../services/webhooks/webhooks.ts';
import { registerDomainTools } from './tools/domain-tools.ts';
import { registerLoadTestTools } from './tools/load-test-tools.ts';
import { registerLookupTools } from './tools/lookup-tools.ts';
import { registerPrompts } from './prompts.ts';
import { registerResources } from './resources.ts';
import { toolRunner } from './run.ts';
import { registerSiteTools } from './tools/site-tools.ts';
import { registerVideoTools } from './tools/video-tools.ts';
import type { JobTools } from './tools/job-tools.ts';
import { serveLegacyTasks, type TaskBounds } from './tasks-2025.ts';
import { serveTasksExtension } from './tasks-ext.ts';
import type { WebhookWaitService } from '../services/webhooks/webhook-waits.ts';
import { registerWebhookTools } from './tools/webhook-tools.ts';
import { registerWebhookWaitTool } from './tools/webhook-wait-tool.ts';
import { registerWebhookDiffTool } from './tools/webhook-diff-tool.ts';
import { registerWebhookTriggerTool } from './tools/webhook-trigger-tool.ts';

export interface McpAccount {
  userId: number;
  plan: Plan;
}

export interface McpToolDeps {
  lookups: LookupService;
  webhooks: WebhookService;
  webhookReplays?: WebhookReplayService;
  /** Waits for a capture, as jobs (Temporal; each holds a live-stream slot, as a live stream does). */
  webhookWaits?: WebhookWaitService;
  quota: QuotaService;
  /** Live streams' slots, and those of tasks/result calls waiting. */
  streams: StreamService;
  /** The site tools need Temporal (jobs on the network pool, as tasks); without it they are not offered. */
  site?: SiteService;
  /** The video tools likewise (jobs on the media pool, as tasks). */
  video?: VideoService;
  /** Load tests and the tasks over jobs (Temporal and the database). */
  loadTests?: LoadTestService;
  targets?: TargetVerificationService;
  domains?: DomainService;
  tasks?: TaskService;
  /** For links to REST resources in large results. */
  baseUrl?: string;
  logger: Logger;
}

export interface McpRequestInfo {
  /**
   * The revision the server answers: `legacy` (2025-11-25 and earlier: `initialize`, and its tasks) or
   * `modern` (2026-07-28: no handshake; tasks by its extension, tasks-ext.ts). Legacy by default.
   */
  era?: 'legacy' | 'modern';
  /** The client's address (a test event's capture records it). */
  clientIp?: string;
}

const MCP_SERVER_INFO = { name: 'netops', version: VERSION };

/** What a task method costs: free within the plan's task reads a minute, then a request; a wait holds a slot. */
function taskBounds(deps: McpToolDeps, account: McpAccount): TaskBounds {
  return {
    async spend() {
      const verdict = await deps.quota.spendPast(account, 'task-reads', taskReadsPerMinute(account.plan));
      if (verdict && !verdict.allowed) throw deps.quota.refusal(account.plan, verdict);
    },
    holdWait: (work) => deps.streams.holdTaskWait(account, work),
  };
}

export function createMcpServer(deps: McpToolDeps, account: McpAccount, request: McpRequestInfo = {}): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { capabilities: { tools: {} } });
  const run = toolRunner(deps.quota, account, deps.logger);
  registerLookupTools(server, run, deps.lookups);
  registerWebhookTools(server, run, deps.webhooks, account, deps.webhookReplays);
  registerWebhookDiffTool(server, run, deps.webhooks, account.userId);
  if (deps.webhooks.trigger)
    registerWebhookTriggerTool(server, run, deps.webhooks.trigger, account.userId, request.clientIp ?? '127.0.0.1');
  const tasks = deps.tasks;
  if (tasks) {
    const jobs: JobTools = { tools: {}, presenters: {} };
    const jobDeps = { tasks, quota: deps.quota, logger: deps.logger, jobs };
    const { presenters } = jobs;
    if (deps.loadTests && deps.targets)
      Object.assign(
        presenters,
        registerLoadTestTools(
          server,
          run,
          { ...jobDeps, loadTests: deps.loadTests, targets: deps.targets, baseUrl: deps.baseUrl ?? '' },
          account,
        ),
      );
    if (deps.domains)
      Object.assign(presenters, registerDomainTools(server, { ...jobDeps, domains: deps.domains }, account));
    if (deps.site) Object.assign(presenters, registerSiteTools(server, jobDeps, deps.site, account));
    if (deps.video) Object.assign(presenters, registerVideoTools(server, run, jobDeps, deps.video, account));
    if (deps.webhookWaits)
      Object.assign(presenters, registerWebhookWaitTool(server, { ...jobDeps, waits: deps.webhookWaits }, account));
    // Tasks: a job's workflow; 2025-11-25's, or the extension's for a 2026-07-28 request that declares it.
    const taskDeps = { tasks, userId: account.userId, logger: deps.logger, bounds: taskBounds(deps, account) };
    if ((request.era ?? 'legacy') === 'legacy') serveLegacyTasks(server, jobs, taskDeps);
    else serveTasksExtension(server, jobs, taskDeps);
  }
  registerResources(server, deps, account, request.era);
  registerPrompts(server, {
    loadTests: Boolean(tasks && deps.loadTests && deps.targets),
    site: Boolean(tasks && deps.site),
  });
  return server;
}
