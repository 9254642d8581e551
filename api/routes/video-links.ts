// The links of a video job, outside /api/v1 (the link itself is the credential, as a webhook URL is):
// POST /uploads/<token> takes the one upload, multipart/form-data with the file in field `video`,
// streamed to the blob store; GET /downloads/<token> gives the result once (a Range within it is served).
import Router from '@koa/router';
import busboy from 'busboy';
import type { Context } from 'koa';
import { AppError, InvalidInputError, UnsupportedMediaTypeError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import type { Services } from '../services/index.ts';

export const UPLOAD_PREFIX = '/uploads/';

export function videoLinkRoutes({ video }: Pick<Services, 'video'>, logger: Logger): Router {
  const router = new Router();

  router.post(`${UPLOAD_PREFIX}:token`, async (ctx) => {
    if (!ctx.is('multipart/form-data')) throw new UnsupportedMediaTypeError('The upload is sent as multipart/form-data, with the file in the field "video"');
    const { jobId, deadline } = await video.beginUpload(ctx.params.token!);
    // The upload must be complete while the link lives (the server's request timeout does not apply here).
    const cutOff = setTimeout(() => ctx.req.destroy(new Error('the upload window closed')), Math.max(0, deadline - Date.now()));
    let began = false;
    try {
      const { bytes } = await new Promise<{ bytes: number }>((resolve, reject) => {
        const form = busboy({ headers: ctx.req.headers, limits: { files: 1, fields: 20, fieldSize: 1024 } });
        form.on('file', (name, file) => {
          if (name !== 'video' || began) return void file.resume();
          began = true;
          video.storeUpload(jobId, file).then(resolve, reject);
        });
        form.on('close', () => began || reject(new InvalidInputError('video: the form has no file in the field "video"', 'video')));
        form.on('error', reject);
        ctx.req.on('error', reject).pipe(form);
      });
      ctx.status = 202;
      ctx.body = { success: true, job_id: jobId, status: 'queued', bytes, message: 'Uploaded: the job is queued; poll its status' };
    } catch (err) {
      if (!began) await video.abandonUpload(jobId);
      refuseRest(ctx);
      throw err instanceof Error && !(err instanceof AppError) && /Unexpected end of form|window closed/.test(err.message) ? new InvalidInputError(`video: the upload did not complete (${err.message})`, 'video') : err;
    } finally {
      clearTimeout(cutOff);
    }
  });

  router.get('/downloads/:token', async (ctx) => {
    const range = /^bytes=(\d+)-(\d*)$/.exec(ctx.get('range'));
    const got = await video.download(ctx.params.token!, range ? { start: Number(range[1]), ...(range[2] ? { end: Number(range[2]) } : {}) } : undefined);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Accept-Ranges', 'bytes');
    ctx.set('Content-Disposition', `attachment; filename="${got.jobId}.mp4"`);
    ctx.type = 'video/mp4';
    if (got.range) {
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${got.range.start}-${got.range.end}/${got.info.size}`);
      ctx.length = got.range.end - got.range.start + 1;
    } else {
      ctx.length = got.info.size;
    }
    ctx.body = got.stream;
    ctx.res.once('finish', () => void got.done().catch((err) => logger.warn({ err, job: got.jobId }, 'telling a video job of its download failed')));
  });

  return router;
}

/** After a refusal mid-upload: answer, then close the connection instead of reading the rest. */
function refuseRest(ctx: Context): void {
  ctx.set('Connection', 'close');
  ctx.res.once('finish', () => ctx.req.destroy());
}
