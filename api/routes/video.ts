// REST twins of the MCP video tools, for API-key users: POST /api/v1/video/watermark-jobs and
// GET /api/v1/video/watermark-jobs/{job_id}.
import Router from '@koa/router';
import { videoOperations as ops } from '../../contract/video.ts';
import type { Services } from '../services/index.ts';
import { serve, type V1Router } from './serve.ts';

export function videoRoutes({ video }: Pick<Services, 'video'>): V1Router {
  const router: V1Router = new Router();
  serve(router, ops.start, (ctx, { body }) => video.start(body, ctx.state.account));
  serve(router, ops.status, (ctx, { params }) => video.status(params.job_id, ctx.state.account.userId));
  return router;
}
