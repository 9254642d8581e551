import Router from '@koa/router';
import { loadTestOperations as ops } from '../../contract/load/load-tests.ts';
import { SERIES_COLUMNS } from '../../contract/load/series-columns.ts';
import type { Services } from '../services/index.ts';
import { csvFormat, NDJSON, startSse, startStream } from '../sse.ts';
import { serve, type V1Router } from './serve.ts';
import { sendReport } from '../pages/load-report.ts';

/** Load tests: workflows on the workflows pool whose shards run on the load pool. */
export function loadTestingRoutes({
  loadTests,
  streams,
  targets,
  reports,
  series,
}: Pick<Services, 'loadTests' | 'streams' | 'targets' | 'reports' | 'series'>): V1Router {
  const router: V1Router = new Router();
  const owned = (ctx: { state: { account: { userId: number } } }, testId: string) =>
    loadTests.owned(testId, ctx.state.account.userId);
  serve(router, ops.start, (ctx, { body }) => loadTests.start(body, ctx.state.account));
  serve(router, ops.verifyTarget, (ctx, { body }) => targets.issue(body.targetUrl, ctx.state.account.userId));
  serve(router, ops.status, (ctx, { params }) => loadTests.statusOf(params.test_id, ctx.state.account.userId));
  // The same answer as a Server-Sent Events stream: an event each time it changes, ending with the test.
  serve(router, ops.events, async (ctx, { params }) => {
    const row = await owned(ctx, params.test_id);
    startSse(ctx, loadTests.statusStream(row.id, ctx.state.account.userId), {
      lease: await streams.open(ctx.state.account),
    });
  });
  // Every second's figures, streamed while the test runs (a live-stream slot of the plan while open).
  serve(router, ops.series, async (ctx, { params, query }) => {
    const row = await owned(ctx, params.test_id);
    const format = query.format === 'csv' ? csvFormat(SERIES_COLUMNS) : NDJSON;
    startStream(ctx, series.stream(row.id, ctx.state.account.userId, query.from), format, {
      lease: await streams.open(ctx.state.account),
    });
  });
  serve(router, ops.stop, async (ctx, { params }) => loadTests.stop(await owned(ctx, params.test_id)));
  serve(router, ops.results, (ctx, { params }) => loadTests.results(params.test_id, ctx.state.account.userId));
  serve(router, ops.report, async (ctx, { params, query }) => {
    const report = await reports.report(params.test_id, ctx.state.account.userId, query.compare);
    if (query.format === 'json') {
      ctx.body = report;
      return;
    }
    sendReport(ctx, report);
  });
  serve(router, ops.list, (ctx, { query }) => loadTests.list(ctx.state.account.userId, query.limit));
  return router;
}
