// Dashboard: video jobs. Start one (the regions of your logo or timestamp, one per line), upload the
// file from the browser, follow its progress, download the result once. The same service as REST and
// MCP; starting is a counted post, the page's polling a counted JSON read.
import { formRefusal } from './form-labels.ts';
import type { Context } from 'koa';
import type { Account } from '../../db/users.ts';
import { type AppError, InvalidInputError } from '../../lib/errors.ts';
import { assetPath } from './assets.ts';
import { html } from '../pages/html.ts';
import { MAX_REGIONS, videoJobBody } from '../../contract/video.ts';
import type { Services } from '../services/index.ts';
import { validate } from '../../contract/validate.ts';
import { dataTable, seeOther, when, type DashboardPages } from './page.ts';

export function videoSection(page: DashboardPages, { video }: Pick<Services, 'video'>): void {
  async function videosPage(ctx: Context, account: Account, form: Record<string, string> = {}, error?: AppError) {
    const jobs = await video.list(account.id);
    const csrf = page.csrf(ctx);
    page.layout(
      ctx,
      account,
      'videos',
      'Videos',
      html`<h1>Videos</h1>
        <p>Removes marks you name from your own footage: your logo or channel bug, a burnt-in timestamp, a screen \
recorder's badge. The marks AI video generators put on their output to disclose it is generated are never removed, and \
a file carrying a C2PA provenance manifest is refused.</p>
        ${error ? html`<p class="error" role="alert">${error.message}</p>` : ''}
        <form method="post" action="/dashboard/videos"><input type="hidden" name="csrf" value="${csrf}">
          <p><label for="regions">Regions to remove, one per line: x, y, width, height in pixels of the frame, \
optionally from and to seconds (at most ${MAX_REGIONS})</label>
          <textarea id="regions" name="regions" rows="4" style="width:100%" placeholder="1180, 20, 80, 80&#10;20, 680, \
240, 30, 0, 12" required>${form.regions ?? ''}</textarea></p>
          <button type="submit">Start a video job</button></form>
        <h2>Your jobs</h2>
        ${
          jobs.length === 0
            ? html`<p>No video jobs yet.</p>`
            : dataTable(
                ['Job', 'Started', 'Status'],
                jobs.map((j) => [
                  html`<a href="/dashboard/videos/${j.job_id}">${j.job_id}</a>`,
                  when(j.started_at),
                  j.reason && j.status === 'failed' ? `failed: ${j.reason}` : j.status,
                ]),
              )
        }`,
      error?.status ?? 200,
    );
  }

  page.get('/videos', (ctx, account) => videosPage(ctx, account));

  page.post('/videos', async (ctx, { form, account }) => {
    try {
      const started = await video.start(
        validate(videoJobBody, { service: 'region', regions: regionsOfLines(form.regions ?? '') }, 'form'),
        { userId: account.id, plan: account.plan },
      );
      seeOther(ctx, `/dashboard/videos/${started.job_id}`);
    } catch (err) {
      return videosPage(ctx, account, form, formRefusal(ctx, err, { regions: 'Regions', service: 'Service' }));
    }
  });

  page.item(
    '/videos/:id',
    'videos',
    'video job',
    (id, account) => video.status(id, account.id),
    async (_ctx, _account, job, show) => {
      show(
        `Video job ${job.job_id}`,
        html`<h1>Video job</h1>
        <p role="status" aria-live="polite" id="video-status" data-job="${job.job_id}" data-status="\
${job.status}">Status <strong>${job.status}</strong>${
          job.status === 'processing'
            ? `, \
${job.progress}% done`
            : ''
        }${job.reason ? `: ${job.reason}` : ''}</p>
        <progress id="video-progress" max="100" value="${job.progress}">${job.progress}%</progress>
        ${
          job.upload_url
            ? html`<form id="video-upload" method="post" action="\
${pathOf(job.upload_url)}" enctype="multipart/form-data">
                <p><label for="video">Your video (MP4 or MOV, at most \
${Math.floor(video.maxUploadBytes / 1024 / 1024)} MiB and 2 hours), before ${when(job.upload_expires_at)}</label>
                <input id="video" name="video" type="file" accept="video/mp4,video/quicktime,.mp4,.mov" required></p>
                <button type="submit">Upload</button></form>`
            : ''
        }
        <p id="video-download">${
          job.download_url
            ? html`<a href="\
${pathOf(job.download_url)}" download>Download the result\
</a> (once, before ${when(job.download_expires_at)})`
            : job.downloaded
              ? 'The result was downloaded.'
              : ''
        }</p>
        <script src="${assetPath('video-job.js')}"></script>`,
      );
    },
  );

  // What the page polls every 2 s while the job runs (the status answer, as REST gives it). Like a page
  // view it is not counted against the plan: a two-hour job would otherwise spend the day's requests.
  page.get('/videos/:job_id/status', async (ctx, account) => {
    ctx.body = await video.status(ctx.params.job_id!, account.id);
  });
}

/** A link of this service as a path, so the page's own origin serves it (its CSP allows only 'self'). */
const pathOf = (url: string) => new URL(url).pathname;

/** The regions of the form's lines: "x, y, width, height[, from, to]". */
function regionsOfLines(text: string): unknown[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line, i) => {
      const n = line.split(/[\s,]+/).map(Number);
      if (n.length !== 4 && n.length !== 6)
        throw new InvalidInputError(
          `regions: line ${i + 1} ("\
${line.slice(0, 40)}") is not "x, y, width, height" with an optional "from, to" in seconds`,
          'regions',
        );
      const [x, y, width, height, start_seconds, end_seconds] = n;
      return { x, y, width, height, ...(n.length === 6 ? { start_seconds, end_seconds } : {}) };
    });
}
