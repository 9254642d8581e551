// Bundles the workflow code (workflow-bundle.ts) in a process of its own and writes it to stdout:
// webpack and all it allocates go when this process ends.
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker/lib/workflow/bundler.js';

const options = JSON.parse(process.argv[2]!) as Pick<BundleOptions, 'workflowsPath' | 'failureConverterPath' | 'workflowInterceptorModules'>;
const { code } = await bundleWorkflowCode({
  ...options,
  logger: { trace() {}, debug() {}, info() {}, warn: console.error, error: console.error, log() {} },
});
process.stdout.write(code);
