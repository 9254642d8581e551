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
  return withWorkflowBundle(options, async ({ codePath }) => ({ code: await fs.readFile(codePath, 'utf8') }));
}

/**
 * The bundle as a file, for `use` (the file is removed when it is done). A worker given the file's path
 * rather than the code keeps the path only; given the code, it keeps the code (~4 MB) in this process's
 * heap for as long as it runs, after its thread has a copy.
 */
export async function withWorkflowBundle<T>(
  options: WorkflowBundleOptions,
  use: (bundle: { codePath: string }) => Promise<T>,
): Promise<T> {
  const bundler = fileURLToPath(new URL('./workflow-bundle-child.ts', import.meta.url));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'netops-bundle-'));
  const out = path.join(dir, 'workflows.js');
  try {
    const { stderr } = await runNodeScript(bundler, [JSON.stringify(options), out], 'bundling the workflow code');
    if (stderr.trim()) console.warn(stderr.trim()); // the bundler's warnings
    return await use({ codePath: out });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
