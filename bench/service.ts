// Starts the service for a benchmark, in its own process, with a fresh data folder and free ports.
import { randomUUID } from 'node:crypto';
import { baseEnv, runScript, startApp, tempDir, type AppProcess } from '../test/support/processes.ts';

export async function startService(env: Record<string, string>): Promise<AppProcess> {
  return startApp({ DATA_DIR: await tempDir('bench'), LOG_LEVEL: 'error', ...env });
}

export async function newAccountKey(env: Record<string, string>): Promise<string> {
  const result = await runScript('scripts/admin.ts', ['create-key', '--email', `bench-${randomUUID()}@example.test`, '--plan', 'enterprise'], { ...baseEnv(), ...env });
  if (result.code !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout).api_key;
}
