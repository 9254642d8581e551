// The links of a video job, outside /api/v1 (the link itself is the credential, as a webhook URL is):
// POST /uploads/<token> takes the one upload, multipart/form-data with the file in field `video`,
// streamed to the blob store; GET /downloads/<token> gives the result (HEAD describes it without
// using it up; a Range resumes an interrupted download).
import { pipeline } from 'node:stream/promises';
import Router from '@koa/router';
import busboy from 'busboy';
import type { Context } from 'koa';
import { AppError, InvalidInputError, UnsupportedMediaTypeError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import { extendDeadline } from '../request-deadline.ts';
import type { Services } from '../services/index.ts';

/** An upload must be complete this long before its link expires (the job expires then). */
const UPLOAD_MARGIN_MS = 5000;

export function videoLinkRoutes({ video }: Pick<Services, 'video'>, logger: Logger): Router {
  const router = new Router();

  router.post('/uploads/:token', async (ctx) => {
    let jobId: string | undefined;
    let began = false;
    try {
      if (!ctx.is('multipart/form-data'))
        throw new UnsupportedMediaTypeError(
          'The upload is sent as multipart/form-data, with the file in the field "video"',
        );
      const accepted = await video.beginUpload(ctx.params.token!, UPLOAD_MARGIN_MS);
      jobId = accepted.jobId;
      // The upload may take as long as the link lives (less the margin), not the usual request timeout.
      extendDeadline(ctx.req, Math.max(1, accepted.deadline - UPLOAD_MARGIN_MS - Date.now()));
      const form = busboy({ headers: ctx.req.headers, limits: { files: 1, fields: 20, fieldSize: 1024, parts: 40 } });
      // Settles as the store does, once the form's file began (never, for a form without one).
      let fileSeen!: (stored: Promise<{ bytes: number }>) => void;
      const storing = new Promise<{ bytes: number }>((resolve) => (fileSeen = resolve));
      form.on('file', (name, file) => {
        if (name !== 'video' || began) return void file.resume();
        began = true;
        fileSeen(video.storeUpload(accepted.jobId, file));
      });
      // The request and the form end together: a broken or cut-off request ends the form with an
      // error, which also ends the file stream the store is reading.
      const parsed = pipeline(ctx.req, form);
      parsed.catch(() => {}); // its failure shows below, or the store's refusal came first
      // Whichever comes first: the store's answer (a refusal mid-stream leaves the rest of the request
      // unread, so the form never ends), or the end of a form that had no file.
      const first = await Promise.race([
        storing,
        parsed.then(
          () => null,
          (err: Error) => err,
        ),
      ]);
      if (first instanceof Error)
        throw began ? first : new InvalidInputError(`video: the form could not be read (${first.message})`, 'video');
      if (!first && !began) throw new InvalidInputError('video: the form has no file in the field "video"', 'video');
      const { bytes } = first ?? (await storing);
      ctx.status = 202;
      ctx.body = {
        success: true,
        job_id: accepted.jobId,
        status: 'queued',
        bytes,
        message: 'Uploaded: the job is queued; poll its status',
      };
    } catch (err) {
      if (jobId && !began) await video.abandonUpload(jobId);
      // Answer, then close the connection instead of reading the rest of a refused upload.
      ctx.set('Connection', 'close');
      ctx.res.once('finish', () => ctx.req.destroy());
      if (err instanceof AppError) throw err;
      throw new InvalidInputError(`video: the upload did not complete (${(err as Error).message})`, 'video');
    }
  });

  const download = (head: boolean) => async (ctx: Context) => {
    const range = /^bytes=(\d+)-(\d*)$/.exec(ctx.get('range'));
    const got = await video.download(ctx.params.token!, {
      head,
      range: range ? { start: Number(range[1]), ...(range[2] ? { end: Number(range[2]) } : {}) } : undefined,
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Accept-Ranges', 'bytes');
    ctx.set('Content-Disposition', `attachment; filename="${got.jobId}.mp4"`);
    ctx.type = 'video/mp4';
    ctx.status = got.range ? 206 : 200; // set for HEAD too, which sends no body
    if (got.range) {
      ctx.set('Content-Range', `bytes ${got.range.start}-${got.range.end}/${got.size}`);
      ctx.length = got.range.end - got.range.start + 1;
    } else {
      ctx.length = got.size;
    }
    if (!got.stream) return; // HEAD
    ctx.body = got.stream;
    // Sent through its last byte: the download happened. Anything else frees the link for a resume.
    let finished = false;
    ctx.res.once('finish', () => (finished = true));
    ctx.res.once(
      'close',
      () =>
        void got
          .settle(finished)
          .catch((err) => logger.warn({ err, job: got.jobId }, 'settling a video download failed')),
    );
  };
  router.head('/downloads/:token', download(true));
  router.get('/downloads/:token', download(false));

  return router;
}
