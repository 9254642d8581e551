// Entry of the workflow bundle: every workflow the `workflows` pool runs, each exported under the type
// name its job kind's declaration gives it (lib/jobs/, JOB_KINDS), and nothing else. The compiler checks
// the names and signatures (workers/pools/workflows.ts), test/unit/api/services/task-kinds.test.ts the list.
export { pipelineCheck } from './pipeline-check.ts';
export { bulkDomainCheck } from './domain-check.ts';
export { loadTest } from './load-test.ts';
export { siteDiscovery, pageAudit } from './site.ts';
export { videoJob } from './video.ts';
export { webhookForwarder, webhookUpkeep, webhookWait } from './webhooks.ts';
