// Runs one of our TypeScript scripts in a Node process of its own and waits for it to end: for work
// whose memory should go with the process that did it (db/connect.ts's new database,
// workers/pools/workflow-bundle.ts's bundle). Node's own flags only, not this process's (an
// --inspect among them would clash). Rejects with the script's stderr, or after `timeoutMs`.
import { execFile } from 'node:child_process';

/** Node's flags for running one of our TypeScript files (the tests' and benchmarks' children too). */
export const NODE_SCRIPT_FLAGS = ['--experimental-strip-types', '--disable-warning=ExperimentalWarning'];

/**
 * glibc's malloc thresholds pinned at their defaults (128 KB), in the environment of the service's process
 * (`npm start`, the image, the tests' and benchmarks' apps): left unset, glibc raises both once the large
 * blocks of the start are freed, and the idle process keeps about 90 MB it no longer uses (docs/operating.md).
 * glibc reads them when a process starts, so they cannot be set from inside it.
 */
export const SERVICE_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' };

export function runNodeScript(
  script: string,
  args: readonly string[],
  what: string,
  timeoutMs = 300_000,
): Promise<{ stderr: string }> {
  return new Promise((resolve, reject) => {
    const argv = [...NODE_SCRIPT_FLAGS, script, ...args];
    execFile(
      process.execPath,
      argv,
      { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (err, _stdout, stderr) => {
        if (err) reject(new Error(`${what} failed: ${stderr.trim() || err.message}`));
        else resolve({ stderr });
      },
    );
  });
}
