import Koa from 'koa';
import Router from '@koa/router';
import { CaptureWriter, type CaptureWriterOptions } from '../db/webhooks/capture-writer.ts';
import { captureOrigin, createCaptureHandler, type CaptureHandler } from './capture.ts';
import { createClientIp } from '../lib/net/client-ip.ts';
import type { ApiDeps } from './deps.ts';
import { apiKeyAuth, type AuthState } from './middleware/auth.ts';
import { errorHandler } from './middleware/errors.ts';
import { jsonBody } from './middleware/json-body.ts';
import { REPLAY_BODY_LIMIT_BYTES } from '../contract/load/load-replay.ts';
import { loadTestOperations } from '../contract/load/load-tests.ts';
import { conditionalGet } from './middleware/conditional-get.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { healthRoutes } from './routes/health.ts';
import { videoLinkRoutes } from './routes/video-links.ts';
import { operatorRoutes } from './routes/operator.ts';
import { v1Routers } from './routes/index.ts';
import { docsRoutes } from './openapi/docs-routes.ts';
import { homeRoutes } from './pages/home.ts';
import { createServices } from './services/index.ts';
import { CAPTURE_KEEP_PER_WEBHOOK } from '../lib/plans.ts';
import { requestContext } from './middleware/request.ts';
import { processMetrics } from '../lib/metrics.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { mcpRoutes } from './mcp/http.ts';
import { interactionRoutes } from './oauth/interactions.ts';
import type { OauthServer } from './oauth/provider.ts';

export interface Api {
  app: Koa;
  /** The capture URL's handler, served in front of Koa (see api/server.ts). */
  capture: CaptureHandler;
  /** Resolves when every capture accepted so far is committed. */
  drain(): Promise<void>;
}

const MAX_CAPTURE_BATCHES = 8;
const CAPTURE_BATCH_SIZE = 32;
const CONNECTIONS_LEFT_TO_THE_API = 2;

/**
 * How the capture writer batches for a database. Postgres: up to 8 batches of at most 32 captures at
 * once, leaving two pooled connections to the rest of the API: several smaller batches keep more than
 * one database process busy where one large batch keeps one (measured with `npm run bench:capture`,
 * figures in docs/benchmarks.md). PGlite, behind its socket (served by a thread of this process or of
 * another), runs one statement at a time: one batch at a time, as large as the writer allows, costs
 * it least.
 */
export function captureBatching(parallelism: number): Pick<CaptureWriterOptions, 'maxConcurrent' | 'maxBatch'> {
  if (parallelism <= 1) return { maxConcurrent: 1 };
  const batches = Math.max(1, Math.min(MAX_CAPTURE_BATCHES, parallelism - CONNECTIONS_LEFT_TO_THE_API));
  return { maxConcurrent: batches, maxBatch: CAPTURE_BATCH_SIZE };
}

export function createApi(deps: ApiDeps, oauth: OauthServer): Api {
  const app = new Koa();
  app.proxy = deps.config.trustedProxies.length > 0;
  app.context.pagesOrigin = new URL(deps.config.baseUrl).origin;
  // A client that leaves an event stream (or any answer) half read is not our failure.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE') return;
    deps.logger.error({ err }, 'unhandled error in the HTTP app');
  });
  // The services are built next, from the writer (test events take the capture path); the writer tells
  // them of what it stored, which it can only do once they exist.
  const writer = new CaptureWriter(deps.db, {
    keepPerWebhook: CAPTURE_KEEP_PER_WEBHOOK,
    ...captureBatching(deps.dbParallelism),
    onError: (err) => deps.logger.error({ err }, 'after storing captures: trimming them or telling of them failed'),
    onStored: (n, webhookIds, forwarding) => {
      processMetrics().capturesStored.inc(n);
      services.forwarding.afterCapturesStored(n, forwarding.length > 0);
      services.webhooks
        .changed(webhookIds)
        .catch((err) => deps.logger.warn({ err }, 'telling live streams of new captures failed'));
    },
    // Checked against their webhook's JSON Schema after the senders have their answers (off the event loop).
    onToCheck: (checks) => services.webhooks.checkStored(checks),
  });
  const services = createServices(deps, writer);
  app.use(requestContext(deps.logger));

  // The authorization server answers its own paths (no body parser may run before it).
  const oauthCallback = oauth.provider.callback();
  app.use(async (ctx, next) => {
    if (!oauth.owns(ctx.path)) return next();
    ctx.respond = false;
    await oauthCallback(ctx.req, ctx.res);
  });

  app.use(errorHandler(deps.logger));

  const health = healthRoutes(deps);
  app.use(health.routes());
  app.use(homeRoutes(deps.config).routes());

  // Public: the API reference (before the key check of /api/v1).
  const docs = docsRoutes(deps);
  app.use(docs.routes());

  const v1 = new Router<AuthState>({ prefix: '/api/v1' });
  // A load test's start may carry a HAR of up to 10 MB.
  const larger = { [`/api/v1${loadTestOperations.start.path}`]: REPLAY_BODY_LIMIT_BYTES };
  v1.use(apiKeyAuth(deps.db, services.credentials), rateLimit(services.quota), conditionalGet(), jsonBody(larger));
  for (const router of v1Routers(services)) {
    v1.use(router.routes(), router.allowedMethods());
  }
  app.use(v1.routes());
  app.use(v1.allowedMethods());

  for (const router of [
    videoLinkRoutes(services, deps.logger),
    mcpRoutes({ ...deps, oauth }, services),
    interactionRoutes({ ...deps, oauth }),
    dashboardRoutes(deps, services),
    operatorRoutes(deps),
  ]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }

  return {
    app,
    capture: createCaptureHandler(
      writer,
      services.captures,
      deps.logger,
      createClientIp(deps.config.trustedProxies),
      captureOrigin(deps.config.baseUrl, deps.config.captureBaseUrl),
    ),
    drain: () => writer.drain(),
  };
}
