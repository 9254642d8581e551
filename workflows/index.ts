// Entry of the workflow bundle: every workflow the `workflows` pool runs.
export { pipelineCheck } from './pipeline-check.ts';
export { bulkDomainCheck } from './domain-check.ts';
export { loadTest } from './load-test.ts';
export { siteDiscovery, pageAudit } from './site.ts';
