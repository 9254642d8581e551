// Runs one of our TypeScript scripts in a Node process of its own and waits for it to end: for work
// whose memory should go with the process that did it (db/connect.ts's new database,
// workers/pools/workflow-bundle.ts's bundle). Node's own flags only, not this process's (an
// --inspect among them would clash). Rejects with the script's stderr, or after `timeoutMs`.
import { execFile } from 'node:child_process';

export function runNodeScript(script: string, args: readonly string[], what: string, timeoutMs = 300_000): Promise<{ stderr: string }> {
  return new Promise((resolve, reject) => {
    const argv = ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', script, ...args];
    execFile(process.execPath, argv, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${what} failed: ${stderr.trim() || err.message}`));
      else resolve({ stderr });
    });
  });
}
