// Starts one role of the service (ROLE): the API, one worker pool, or everything in one process. The
// entry scripts (all.ts, and one per pool) call this; it builds the pools' workers with pools/.
import type { Worker } from '@temporalio/worker';
import { startApiServer, type ApiServer } from '../api/server.ts';
import { ensureFirstAdminKey } from '../db/bootstrap.ts';
import { ConfigError, loadConfig, type Config } from '../lib/config.ts';
import type { Role } from '../lib/config-schema.ts';
import { createLogger, type Logger } from '../lib/log.ts';
import { installUnhandledPolicy } from '../lib/unhandled.ts';
import { connectClient, connectWorkerConnection } from '../lib/temporal/client.ts';
import { encryptingDataConverter, loadPayloadKey } from '../lib/temporal/codec.ts';
import { ensureTemporal, installTemporalRuntime, openStorage, type Storage } from './platform.ts';
import { createLoadWorker } from './pools/load.ts';
import { createMediaWorker } from './pools/media.ts';
import { createNetworkWorker } from './pools/network.ts';
import { createWorkflowsWorker } from './pools/workflows.ts';

export async function runRole(role?: Role): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
  const logger = createLogger(config.logLevel, 'netops');
  installUnhandledPolicy(logger);
  try {
    await run({ ...config, role: role ?? config.role }, logger);
  } catch (err) {
    logger.fatal({ err }, 'start failed');
    console.error(`Start failed: ${(err as Error).message}`);
    process.exit(1);
  }
}

async function run(config: Config, logger: Logger): Promise<void> {
  const role = config.role;
  const wants = (r: Role) => role === 'all' || role === r;
  const closers: Array<() => Promise<unknown>> = [];
  const stop = async (signal: string) => {
    logger.info({ signal }, 'stopping');
    for (const close of closers.reverse()) await close().catch((err) => logger.error({ err }, 'stop failed'));
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));

  installTemporalRuntime(logger);
  const temporal = await ensureTemporal(config, logger);
  if (temporal.devServer) closers.push(() => temporal.devServer!.stop());

  const dataConverter = encryptingDataConverter(await loadPayloadKey(config.payloadKey, config.dataDir));
  const needsStorage = role !== 'worker:workflows';
  let storage: Storage | undefined;
  if (needsStorage) {
    storage = await openStorage(config);
    closers.push(() => storage!.close());
  }

  const workers: Worker[] = [];
  if (role !== 'api') {
    const connection = await connectWorkerConnection(temporal.address);
    closers.push(() => connection.close());
    const ctx = { connection, namespace: config.temporal.namespace, dataConverter, config, storage };
    if (wants('worker:workflows')) workers.push(await createWorkflowsWorker(ctx));
    if (wants('worker:network')) workers.push(await createNetworkWorker(ctx));
    if (wants('worker:load')) workers.push(await createLoadWorker(ctx));
    if (wants('worker:media')) workers.push(...(await createMediaWorker(ctx)));
    const running = workers.map((w) => w.run());
    closers.push(async () => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await Promise.allSettled(running);
    });
    void Promise.all(running).catch((err) => {
      logger.fatal({ err }, 'worker failed');
      void stop('worker failure');
    });
  }

  // Before the API listens: no request, and no admin command, can create the first user first.
  const admin = wants('api') && storage ? await ensureFirstAdminKey(storage.database.db) : null;
  let api: ApiServer | undefined;
  if (wants('api')) {
    const client = await connectClient(temporal.address, config.temporal.namespace, dataConverter);
    closers.push(() => client.connection.close());
    const { database, kv, blobs } = storage!;
    api = await startApiServer({
      config,
      logger,
      db: database.db,
      dbParallelism: database.parallelism,
      kv,
      blobs,
      temporal: client,
      codec: dataConverter.payloadCodecs![0]!,
      temporalUiUrl: temporal.uiUrl ?? undefined,
    });
    closers.push(() => api!.close());
  }

  const lines = [
    `netops ${role} ready (database: ${storage?.database.kind ?? 'none'}, store: ` +
      `${storage?.kv.kind ?? 'none'}, blobs: ${storage?.blobs.kind ?? 'none'})`,
  ];
  if (api) lines.push(`API:         ${api.url}  (public base URL ${config.baseUrl})`);
  lines.push(`Temporal:    ${temporal.address} namespace ${config.temporal.namespace}`);
  if (temporal.uiUrl) lines.push(`Temporal UI: ${temporal.uiUrl}`);
  if (workers.length) lines.push(`Workers:     ${workers.map((w) => w.options.taskQueue).join(', ')}`);
  if (admin) {
    lines.push(`First run: admin API key for ${admin.email} (shown once): ${admin.apiKey}`);
    lines.push(
      `           sign in at ${config.baseUrl}/dashboard as ${admin.email} with password ${admin.password} ` +
        `(shown once; change it with \`npm run admin -- create-user --email ${admin.email} --password ...\`)`,
    );
  }
  console.log(lines.join('\n'));
}
