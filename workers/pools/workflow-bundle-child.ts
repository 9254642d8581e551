// The child process of workflow-bundle.ts: bundles the workflow code and writes it to the file named;
// webpack and all it allocates go when this process ends.
import fs from 'node:fs/promises';
import { bundleWorkflowCode } from '@temporalio/worker/lib/workflow/bundler.js';
import type { WorkflowBundleOptions } from './workflow-bundle.ts';

const [, , given, out] = process.argv;
const options = JSON.parse(given!) as WorkflowBundleOptions;
const { code } = await bundleWorkflowCode({
  ...options,
  logger: { trace() {}, debug() {}, info() {}, warn: console.error, error: console.error, log() {} },
});
await fs.writeFile(out!, code);
