// Bundles the workflow code (workflow-bundle.ts) in a process of its own and writes it to the file
// named: webpack and all it allocates go when this process ends.
import fs from 'node:fs/promises';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker/lib/workflow/bundler.js';

const [, , given, out] = process.argv;
const options = JSON.parse(given!) as Pick<BundleOptions, 'workflowsPath' | 'failureConverterPath' | 'workflowInterceptorModules'>;
const { code } = await bundleWorkflowCode({
  ...options,
  logger: { trace() {}, debug() {}, info() {}, warn: console.error, error: console.error, log() {} },
});
await fs.writeFile(out!, code);
