// Starts the service once per test run, as a user would, for each backend set under test:
// - `embedded`: Temporal dev server started by the app, PGlite, in-process store, folder blobs;
// - `external`: whatever of DATABASE_URL, REDIS_URL, S3_*, TEMPORAL_ADDRESS this run has (CI sets them all).
import type { TestProject } from 'vitest/node';
import { BACKEND_VARS, startApp, tempDir, type AppProcess } from './processes.ts';

export interface Target {
  name: 'embedded' | 'external';
  baseUrl: string;
  env: Record<string, string>;
  temporalAddress: string;
  pid: number;
  /** The admin key the app printed on first run, when it printed one. */
  firstRunKey: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    targets: Target[];
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const apps: Array<[Target['name'], AppProcess]> = [];
  const stopAll = () => Promise.all(apps.map(([, a]) => a.stop())).then(() => {});
  try {
    apps.push(['embedded', await startApp({ DATA_DIR: await tempDir('embedded') })]);
    const external = Object.fromEntries(BACKEND_VARS.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
    if (Object.keys(external).some((k) => k !== 'TEMPORAL_ADDRESS' && k !== 'PAYLOAD_KEY')) {
      apps.push(['external', await startApp({ ...external, DATA_DIR: await tempDir('external') })]);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  project.provide(
    'targets',
    apps.map(([name, app]) => ({
      name,
      baseUrl: app.baseUrl,
      env: app.env,
      temporalAddress: app.temporalAddress,
      pid: app.pid,
      firstRunKey: /admin API key .*: (ntk_\S+)/.exec(app.output())?.[1] ?? null,
    })),
  );
  return stopAll;
}
