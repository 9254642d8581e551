// The workflow code as the workflows pool's worker runs it, bundled by webpack. Bundling in this
// process grew it by ~160 MB that stayed after the bundle was made (measured: 114 MB RSS before,
// 272 MB after, garbage collected or on a worker thread alike); in a process of its own
// (workflow-bundler.ts) that memory goes when it ends, and only the code (~2 MB) comes back, in a file.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WorkflowBundleOptions {
  workflowsPath: string;
  failureConverterPath?: string;
  workflowInterceptorModules?: string[];
}

export async function bundleWorkflows(options: WorkflowBundleOptions): Promise<{ code: string }> {
  const bundler = fileURLToPath(new URL('./workflow-bundler.ts', import.meta.url));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'netops-bundle-'));
  const out = path.join(dir, 'workflows.js');
  try {
    await new Promise<void>((resolve, reject) => {
      const args = ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', bundler, JSON.stringify(options), out];
      execFile(process.execPath, args, { timeout: 300_000, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (err, _stdout, stderr) => {
        if (err) return reject(new Error(`bundling the workflow code failed: ${stderr.trim() || err.message}`));
        if (stderr.trim()) console.warn(stderr.trim()); // the bundler's warnings
        resolve();
      });
    });
    return { code: await fs.readFile(out, 'utf8') };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
