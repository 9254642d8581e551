// Opens what a process of this service needs, by role: database, key-value store, blob store, Temporal.
import fs from 'node:fs/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { openDatabase, type DatabaseHandle } from '../db/connect.ts';
import { createBlobStore, type BlobStore } from '../lib/blob/index.ts';
import type { Config } from '../lib/config.ts';
import { canConnect } from '../lib/can-connect.ts';
import { createKvStore, type KvStore } from '../lib/kv/index.ts';
import type { Logger } from '../lib/log.ts';
import { startDevServer, type DevServer } from '../lib/temporal/dev-server.ts';

export interface Storage {
  database: DatabaseHandle;
  kv: KvStore;
  blobs: BlobStore;
  close(): Promise<void>;
}

export async function openStorage(config: Config): Promise<Storage> {
  await fs.mkdir(config.dataDir, { recursive: true });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const kv = createKvStore(config.redisUrl);
  const blobs = await createBlobStore(config.s3, config.dataDir);
  return {
    database,
    kv,
    blobs,
    async close() {
      await Promise.allSettled([kv.close(), blobs.close()]);
      await database.close();
    },
  };
}

export interface TemporalEndpoint {
  address: string;
  /** Temporal UI, known when this process runs or found the embedded server. */
  uiUrl: string | undefined;
  devServer: DevServer | undefined;
}

/**
 * TEMPORAL_ADDRESS when set; else the embedded dev server: joined when another process of ours runs it, started
 * otherwise.
 */
export async function ensureTemporal(config: Config, logger?: Logger): Promise<TemporalEndpoint> {
  if (config.temporal.address) return { address: config.temporal.address, uiUrl: undefined, devServer: undefined };
  const local = `127.0.0.1:${config.temporal.devPort}`;
  const uiUrl = `http://127.0.0.1:${config.temporal.uiPort}`;
  if (await canConnect({ host: '127.0.0.1', port: config.temporal.devPort }))
    return { address: local, uiUrl, devServer: undefined };
  const devServer = await startDevServer({
    cli: config.temporal.cli,
    dataDir: config.dataDir,
    port: config.temporal.devPort,
    uiPort: config.temporal.uiPort,
    namespace: config.temporal.namespace,
    onRestart: (why, waitMs) =>
      logger?.error({ why }, `the embedded Temporal server ended: starting it again in ${waitMs / 1000} s`),
  });
  return { address: devServer.address, uiUrl: devServer.uiUrl, devServer };
}

let runtimeInstalled = false;

/**
 * Routes the Temporal runtime's logs through ours: warnings and up from the SDK itself, and the
 * info lines our workflows and activities write (they carry the workflow and activity ids and, through
 * the interceptors, the id of the API request behind the job). Once per process.
 */
export function installTemporalRuntime(logger: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    shutdownSignals: [], // workers/run.ts stops everything in order on SIGINT/SIGTERM
    logger: new DefaultLogger('INFO', (entry) => {
      // A pool without workflows (or activities) is the design, not a problem worth a warning.
      if (/^No (workflows|activities) registered/.test(entry.message)) return;
      const ours = entry.meta?.sdkComponent === 'activity' || entry.meta?.sdkComponent === 'workflow';
      if (entry.level === 'INFO' && !ours) return;
      const level = entry.level === 'ERROR' ? 'error' : entry.level === 'WARN' ? 'warn' : 'info';
      // A task token completes the activity for whoever holds it: it stays out of the logs.
      const { taskToken: _token, ...meta } = (entry.meta ?? {}) as Record<string, unknown>;
      logger[level]({ temporal: meta }, entry.message);
    }),
  });
}
