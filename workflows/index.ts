// Entry of the workflow bundle: every workflow the `workflows` pool runs, each exported under the type
// name lib/jobs/index.ts gives it (JobWorkflows; workers/pools/workflows.ts checks it at compile time).
export { pipelineCheck } from './pipeline-check.ts';
export { bulkDomainCheck } from './domain-check.ts';
export { loadTest } from './load-test.ts';
export { siteDiscovery, pageAudit } from './site.ts';
export { videoJob } from './video.ts';
export { webhookForwarder, webhookUpkeep, webhookWait } from './webhooks.ts';
