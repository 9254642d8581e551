import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApi } from './app.ts';
import { CAPTURE_PREFIX } from './capture.ts';
import type { ApiDeps } from './deps.ts';
import { answerClientErrors } from './client-errors.ts';
import { createOauthServer } from './oauth/provider.ts';
import { sweepExpiredOauthRecords } from '../db/oauth-store.ts';
import { ensureSearchAttributes } from '../lib/temporal/search-attributes.ts';
import { ensureWebhookUpkeepSchedule } from './services/webhooks/webhook-forwarding.ts';
import { trustedProxyCheck } from '../lib/net/client-ip.ts';
import { limitConnectionsPerClient } from './connection-limit.ts';
import { requestDeadline } from './request-deadline.ts';

const OAUTH_SWEEP_EVERY_MS = 60 * 60 * 1000;

export interface ApiServer {
  url: string;
  close(): Promise<void>;
}

export async function startApiServer(deps: ApiDeps): Promise<ApiServer> {
  await ensureSearchAttributes(deps.temporal, deps.config.temporal.namespace, (m) => deps.logger.warn(m));
  await ensureWebhookUpkeepSchedule(deps.temporal);
  const api = createApi(deps, await createOauthServer(deps));
  // Expired OAuth codes, tokens, sessions and grants leave the table (every API process sweeps; it is idempotent).
  const sweeper = setInterval(() => {
    sweepExpiredOauthRecords(deps.db).catch((err) =>
      deps.logger.warn({ err }, 'sweeping expired OAuth records failed'),
    );
  }, OAUTH_SWEEP_EVERY_MS).unref();
  const koa = api.app.callback();
  const { config } = deps;
  // The headers' timeout is checked every second (Node's default is every 30 s), so a slow sender goes
  // on time. The whole request's is ours, per request: an accepted upload gets its link's life instead.
  const server = http.createServer(
    { headersTimeout: config.headersTimeoutMs, requestTimeout: 0, connectionsCheckingInterval: 1000 },
    (req, res) => {
      requestDeadline(req, res, config.requestTimeoutMs);
      return req.url?.startsWith(CAPTURE_PREFIX) ? api.capture(req, res) : koa(req, res);
    },
  );
  answerClientErrors(server);
  limitConnectionsPerClient(server, config.maxConnectionsPerClient, trustedProxyCheck(config.trustedProxies));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.port, deps.config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = deps.config.host.includes(':') ? `[${deps.config.host}]` : deps.config.host;
  return {
    url: `http://${host}:${port}`,
    async close() {
      clearInterval(sweeper);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await api.drain();
      setTimeout(() => server.closeAllConnections(), 5000).unref();
      await closed;
    },
  };
}
