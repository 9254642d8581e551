// The suites' harness (test/support/processes.ts): tempDir makes its folders in the test run's own
// folder, which global setup removes when the run ends.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NODE_SCRIPT_FLAGS } from '../../../../lib/threads/node-script.ts';
import { ROOT, TEST_RUN_DIR } from '../../../support/processes.ts';

describe('tempDir', () => {
  it("makes its folders in the run's folder a process was started with", async () => {
    const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netops-harness-run-'));
    try {
      const script =
        "const { tempDir } = await import('./test/support/processes.ts'); console.log(await tempDir('x'));";
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [...NODE_SCRIPT_FLAGS, '--input-type=module', '-e', script],
        { cwd: ROOT, env: { ...process.env, [TEST_RUN_DIR]: runDir } },
      );
      const dir = stdout.trim();
      expect(path.dirname(dir)).toBe(runDir);
      expect(path.basename(dir)).toMatch(/^netops-x-/);
    } finally {
      fs.rmSync(runDir, { recursive: true, force: true });
    }
  });

  it('is where every worker of this run makes them: the run has a folder of its own', () => {
    expect(process.env[TEST_RUN_DIR]).toMatch(/netops-run-/);
  });
});
