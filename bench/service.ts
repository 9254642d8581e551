// Starts the service for a benchmark, in its own process, with a fresh data folder and free ports;
// stopping it removes the folder (a capture benchmark leaves 1.5-4 GB of database and Temporal
// history behind: a few runs filled this machine's disk, measured).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { baseEnv, runScript, startApp, tempDir, type AppProcess } from '../test/support/processes.ts';

export async function startService(env: Record<string, string>): Promise<AppProcess> {
  const dataDir = await tempDir('bench');
  const app = await startApp({ DATA_DIR: dataDir, LOG_LEVEL: 'error', ...env });
  return {
    ...app,
    async stop() {
      await app.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function newAccountKey(env: Record<string, string>): Promise<string> {
  const result = await runScript(
    'scripts/admin.ts',
    ['create-key', '--email', `bench-${randomUUID()}@example.test`, '--plan', 'enterprise'],
    { ...baseEnv(), ...env },
  );
  if (result.code !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout).api_key;
}
