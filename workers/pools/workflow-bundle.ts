// The workflow code as the workflows pool's worker runs it, bundled by webpack. Bundling in this
// process more than doubled its memory, and the growth stayed after the bundle was made (garbage
// collected or on a worker thread alike); in a child process of its own (workflow-bundle-child.ts)
// that memory goes when it ends, and only the code comes back, in a file.
import type { BundleOptions } from '@temporalio/worker/lib/workflow/bundler.js';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNodeScript } from '../../lib/threads/node-script.ts';

/** What of the SDK's bundle options the pool sets (passed to the bundler as JSON). */
export type WorkflowBundleOptions = Pick<
  BundleOptions,
  'workflowsPath' | 'failureConverterPath' | 'workflowInterceptorModules'
>;

export async function bundleWorkflows(options: WorkflowBundleOptions): Promise<{ code: string }> {
  const bundler = fileURLToPath(new URL('./workflow-bundle-child.ts', import.meta.url));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'netops-bundle-'));
  const out = path.join(dir, 'workflows.js');
  try {
    const { stderr } = await runNodeScript(bundler, [JSON.stringify(options), out], 'bundling the workflow code');
    if (stderr.trim()) console.warn(stderr.trim()); // the bundler's warnings
    return { code: await fs.readFile(out, 'utf8') };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
