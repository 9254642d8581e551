// The shared definitions of the jobs: what the API, the workflows, the workers and the activities
// agree on. Task queues, each workflow's type name, input and output, and the queries and signals
// the API sends. Nothing here runs a workflow: the API process imports this without the workflow
// code, and activities import it without an upward arrow (lib/ is below activities/ and workflows/).
// These files go into the workflow bundle: they import @temporalio/workflow's define* helpers, each
// other, and lib/ types only (`import type`: nothing of lib/ runs in the workflow sandbox).
import type { DomainCheckWorkflow } from './domain-check.ts';
import type { LoadTestWorkflow } from './load-test.ts';
import type { PipelineCheckWorkflow } from './pipeline-check.ts';
import type { PageAuditWorkflow, SiteDiscoveryWorkflow } from './site.ts';
import type { VideoJobWorkflow } from './video.ts';
import type { WebhookUpkeepWorkflow, WebhookForwarderWorkflow, WebhookWaitWorkflow } from './webhooks.ts';

export * from './task-queues.ts';
export * from './pipeline-check.ts';
export * from './domain-check.ts';
export * from './load-test.ts';
export * from './load-outputs.ts';
export * from './site.ts';
export * from './video.ts';
export * from './webhooks.ts';

/**
 * Every workflow, by the type name it is started with, and its signature. workflows/index.ts exports
 * each under that name (checked at compile time by workers/pools/workflows.ts); lib/temporal/jobs.ts
 * starts them by name with arguments checked against the signature.
 */
export interface JobWorkflows {
  pipelineCheck: PipelineCheckWorkflow;
  bulkDomainCheck: DomainCheckWorkflow;
  loadTest: LoadTestWorkflow;
  siteDiscovery: SiteDiscoveryWorkflow;
  pageAudit: PageAuditWorkflow;
  videoJob: VideoJobWorkflow;
  webhookForwarder: WebhookForwarderWorkflow;
  webhookUpkeep: WebhookUpkeepWorkflow;
  webhookWait: WebhookWaitWorkflow;
}

export type JobWorkflowType = keyof JobWorkflows;

/** Every workflow type name, for what goes through them all (the operator's job counts). */
export const JOB_WORKFLOW_TYPES = Object.keys({
  loadTest: true,
  bulkDomainCheck: true,
  siteDiscovery: true,
  pageAudit: true,
  pipelineCheck: true,
  videoJob: true,
  webhookForwarder: true,
  webhookUpkeep: true,
  webhookWait: true,
} satisfies Record<JobWorkflowType, true>) as JobWorkflowType[];
