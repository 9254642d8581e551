// For operators: /metrics (Prometheus text format) and /codec/decode (Temporal's remote codec
// protocol, so Temporal UI or `temporal workflow show --codec-endpoint ... --codec-auth "Bearer ..."`
// can show encrypted payloads). Both need `Authorization: Bearer <OPERATOR_TOKEN>`, or, when no
// token is configured, a client on this machine (loopback).
import { timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { sql } from 'kysely';
import type { Payload } from '@temporalio/common';
import { AppError, ForbiddenError, InvalidInputError, UnauthorizedError } from '../../lib/errors.ts';
import { processMetrics } from '../../lib/metrics.ts';
import { Gauge } from 'prom-client';
import type { ApiDeps } from '../deps.ts';
import { readBody } from '../read-body.ts';
import { JOB_WORKFLOW_TYPES, TASK_QUEUES } from '../../lib/jobs/index.ts';

const CODEC_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export function operatorRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const metrics = processMetrics();
  const token = deps.config.operatorToken ? Buffer.from(deps.config.operatorToken) : null;

  const operatorOnly = (ctx: Context) => {
    if (token) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
      const sent = Buffer.from(m?.[1] ?? '');
      if (sent.length !== token.length || !timingSafeEqual(sent, token))
        throw new UnauthorizedError(
          'Operator endpoints need Authorization: Bearer <OPERATOR_TOKEN>',
          'Bearer realm="operator"',
        );
      return;
    }
    // Loopback mode: the socket's own peer must be this machine and nothing may have forwarded the
    // request (a proxy on this machine makes every client look local).
    const peer = ctx.req.socket.remoteAddress ?? '';
    const local = peer === '::1' || peer.startsWith('127.') || peer.startsWith('::ffff:127.');
    if (!local || ctx.get('x-forwarded-for') || ctx.get('forwarded'))
      throw new ForbiddenError(
        'Operator endpoints answer only this machine (directly, not through a proxy) unless OPERATOR_TOKEN is set',
      );
  };

  // Cluster-wide figures, read when scraped: jobs by type and status from Temporal's visibility,
  // load requests sent from the shard totals in the database, task-queue backlogs.
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    (metrics.registry.getSingleMetric(name) as Gauge<string> | undefined) ??
    new Gauge({ name, help, labelNames, registers: [metrics.registry] });
  const jobs = gauge('netops_jobs', 'Workflows known to Temporal, by type and status', ['type', 'status']);
  const loadSent = gauge('netops_load_requests_sent', 'Requests sent by load tests (all shards of all stored tests)');
  const backlog = gauge('netops_task_queue_backlog', 'Approximate backlog of each task queue', ['task_queue']);

  async function refreshClusterFigures(): Promise<void> {
    jobs.reset();
    await Promise.all([
      ...JOB_WORKFLOW_TYPES.map(async (type) => {
        try {
          const counted = await deps.temporal.workflow.count(`WorkflowType = '${type}' GROUP BY ExecutionStatus`);
          for (const g of counted.groups) jobs.set({ type, status: String(g.groupValues[0]).toLowerCase() }, g.count);
        } catch (err) {
          deps.logger.debug({ err, type }, 'workflow count unavailable');
        }
      }),
      (async () => {
        const row = await sql<{
          sent: string | null;
        }>`select coalesce(sum((snapshot->>'total')::bigint), 0) as sent from load_test_shards`.execute(deps.db);
        loadSent.set(Number(row.rows[0]?.sent ?? 0));
      })().catch((err) => deps.logger.debug({ err }, 'load totals unavailable')),
      ...Object.values(TASK_QUEUES).map(async (queue) => {
        try {
          const d = await deps.temporal.workflowService.describeTaskQueue({
            namespace: deps.config.temporal.namespace,
            taskQueue: { name: queue },
            reportStats: true,
            apiMode: 1 /* ENHANCED */,
          } as never);
          const stats = (
            d as {
              versionsInfo?: Record<
                string,
                { typesInfo?: Record<string, { stats?: { approximateBacklogCount?: unknown } }> }
              >;
            }
          ).versionsInfo;
          let total = 0;
          for (const v of Object.values(stats ?? {}))
            for (const t of Object.values(v.typesInfo ?? {})) total += Number(t.stats?.approximateBacklogCount ?? 0);
          backlog.set({ task_queue: queue }, total);
        } catch (err) {
          deps.logger.debug({ err, queue }, 'task queue stats unavailable');
        }
      }),
    ]);
  }

  router.get('/metrics', async (ctx) => {
    operatorOnly(ctx);
    await refreshClusterFigures();
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });

  const cors = (ctx: Context) => {
    const origin = ctx.get('origin');
    if (origin && deps.temporalUiUrl && origin === new URL(deps.temporalUiUrl).origin) {
      ctx.set({
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Headers': 'content-type, x-namespace, authorization',
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Credentials': 'true',
        Vary: 'Origin',
      });
    }
  };
  router.options('/codec/decode', (ctx) => {
    cors(ctx);
    ctx.status = 204;
  });
  router.post('/codec/decode', async (ctx) => {
    cors(ctx);
    operatorOnly(ctx);
    let body: { payloads?: Array<{ metadata?: Record<string, string>; data?: string }> };
    try {
      body = JSON.parse((await readBody(ctx.req, CODEC_BODY_LIMIT_BYTES)).toString('utf8'));
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new InvalidInputError('The body must be JSON: {"payloads":[{"metadata":{...},"data":"<base64>"}]}');
    }
    if (!Array.isArray(body?.payloads)) throw new InvalidInputError('payloads must be an array', 'payloads');
    const payloads: Payload[] = body.payloads.map((p) => ({
      metadata: Object.fromEntries(
        Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64')]),
      ),
      data: Buffer.from(String(p.data ?? ''), 'base64'),
    }));
    let decoded: Payload[];
    try {
      decoded = await deps.codec.decode(payloads);
    } catch (err) {
      throw new InvalidInputError(`The payloads could not be decoded: ${(err as Error).message}`);
    }
    ctx.body = {
      payloads: decoded.map((p) => ({
        metadata: Object.fromEntries(
          Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
        ),
        data: Buffer.from(p.data ?? []).toString('base64'),
      })),
    };
  });
  return router;
}
