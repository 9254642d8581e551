// The workflow code as the workflows pool's worker runs it, bundled by webpack. Bundling in this
// process grew it by ~160 MB that stayed after the bundle was made (measured: 114 MB RSS before,
// 272 MB after, garbage collected or on a worker thread alike); in a process of its own
// (workflow-bundler.ts) that memory goes when it ends, and only the code (~2 MB) comes back.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface WorkflowBundleOptions {
  workflowsPath: string;
  failureConverterPath?: string;
  workflowInterceptorModules?: string[];
}

export function bundleWorkflows(options: WorkflowBundleOptions): Promise<{ code: string }> {
  const bundler = fileURLToPath(new URL('./workflow-bundler.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', bundler, JSON.stringify(options)], { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`bundling the workflow code failed: ${stderr.trim() || err.message}`));
      else resolve({ code: stdout });
    });
  });
}
