// Video jobs for every door (REST, MCP, dashboard, the upload and download links): start a job, read
// its status from the workflow, take its one upload into the blob store, and hand out its result once.
// The links carry the job id and an HMAC of it (api/services/video/video-links.ts). Single use is a
// set-if-absent mark in the key-value store; the workflow deletes the blobs whatever the ending.
import type { Readable } from 'node:stream';
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import type { BlobStore, ByteRange } from '../../../lib/blob/index.ts';
import type { Config } from '../../../lib/config.ts';
import { AppError, GoneError, InvalidInputError, NotFoundError } from '../../../lib/errors.ts';
import type { KvStore } from '../../../lib/kv/index.ts';
import type { Plan } from '../../../lib/plans.ts';
import { findOwnedJob, newJobId, readJobState, startJob, workflowIdOf } from '../../../lib/temporal/jobs.ts';
import {
  getVideoJobState,
  VIDEO_JOB_KIND,
  VIDEO_SERVICES,
  videoDownloaded,
  videoProgressKey,
  videoResultKey,
  videoUploaded,
  videoUploadKey,
  type VideoJobInput,
  type VideoJobState,
  type VideoProfile,
} from '../../../lib/jobs/video.ts';
import type { VideoJobBody } from '../../../contract/video.ts';
import { videoLinks } from './video-links.ts';
import { videoSlots } from './video-slots.ts';
import { ftypSignature } from './video-upload.ts';

/** Single-use marks outlive any link (a week is the longest a link can live). */
const USED_MARK_SECONDS = 8 * 86_400;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function videoService(deps: {
  config: Config;
  db: Kysely<Database>;
  kv: KvStore;
  blobs: BlobStore;
  temporal: Client;
}) {
  const { config, kv, blobs, temporal } = deps;
  const { link, jobOfLink } = videoLinks({ config, db: deps.db });
  const slots = videoSlots(kv, config.video);
  const handleOf = (jobId: string): WorkflowHandle => temporal.workflow.getHandle(workflowIdOf(VIDEO_JOB_KIND, jobId));

  async function stateOf(handle: WorkflowHandle): Promise<VideoJobState | null> {
    try {
      return await readJobState(handle, getVideoJobState);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }

  /** What every door shows of a job. */
  async function present(jobId: string, s: VideoJobState) {
    const now = Date.now();
    const progress = s.status === 'processing' ? Number((await kv.get(videoProgressKey(jobId))) ?? 0) : s.progress;
    const downloadable =
      s.status === 'done' && !s.downloaded && s.downloadExpiresAt !== null && s.downloadExpiresAt > now;
    return {
      success: true as const,
      job_id: jobId,
      status: s.status,
      progress,
      reason: s.reason,
      upload_url: s.status === 'awaiting_upload' ? await link('upload', jobId) : null,
      upload_expires_at: s.status === 'awaiting_upload' ? iso(s.uploadExpiresAt) : null,
      download_url: downloadable ? await link('download', jobId) : null,
      download_expires_at: downloadable ? iso(s.downloadExpiresAt) : null,
      downloaded: s.downloaded,
      source: s.source,
      upload_bytes: s.uploadBytes,
      result_bytes: s.resultBytes,
    };
  }

  return {
    maxUploadBytes: config.video.maxBytes,

    /** Starts a job, holding one of the owner's plan's slots until it ends (video-slots.ts), else 429. */
    async start(body: VideoJobBody, owner: { userId: number; plan: Plan }) {
      if (!(VIDEO_SERVICES as readonly string[]).includes(body.service))
        throw new InvalidInputError(
          `service: must be one of ${VIDEO_SERVICES.join(', ')} (got "${body.service.slice(0, 60)}")`,
          'service',
        );
      const jobId = newJobId();
      const { uploadTtlSeconds, downloadTtlSeconds } = config.video;
      const service = body.service as VideoProfile;
      const args: [VideoJobInput] = [{ jobId, service, regions: body.regions, uploadTtlSeconds, downloadTtlSeconds }];
      await slots.hold(owner, jobId);
      try {
        await startJob(temporal, {
          kind: VIDEO_JOB_KIND,
          ownerId: owner.userId,
          workflow: 'videoJob',
          publicId: jobId,
          args,
        });
      } catch (err) {
        await slots.free(owner.userId, jobId);
        throw err;
      }
      return {
        success: true as const,
        job_id: jobId,
        status: 'awaiting_upload' as const,
        upload_url: await link('upload', jobId),
        upload_expires_at: iso(Date.now() + uploadTtlSeconds * 1000),
        max_upload_bytes: config.video.maxBytes,
        message:
          'POST the MP4 or MOV to upload_url as multipart/form-data, field "video" ' +
          `(at most ${config.video.maxBytes} bytes and 2 hours), then poll the status`,
      };
    },

    /** The user's latest jobs (Temporal's visibility, by the jobs' search attributes): id, start, open or closed. */
    async list(ownerId: number, limit = 20) {
      const found: Array<{ job_id: string; started_at: string; open: boolean }> = [];
      try {
        for await (const w of temporal.workflow.list({
          query: `NetopsKind = '${VIDEO_JOB_KIND}' AND NetopsOwner = ${Number(ownerId)}`,
        })) {
          found.push({
            job_id: w.workflowId.slice(VIDEO_JOB_KIND.length + 1),
            started_at: w.startTime.toISOString(),
            open: w.status.name === 'RUNNING',
          });
          if (found.length >= limit) break;
        }
      } catch {
        // A namespace without the search attributes lists nothing; each job's own page still works.
      }
      // Each job's status as the API names it (a downloaded result says so), with a failure's reason;
      // open or ended when the state cannot be read now.
      return Promise.all(
        found.map(async (j) => {
          const state = await stateOf(handleOf(j.job_id)).catch(() => null);
          const status = state ? (state.downloaded ? 'downloaded' : state.status) : j.open ? 'open' : 'ended';
          return { ...j, status, reason: state?.reason ?? null };
        }),
      );
    },

    /** The job of `ownerId`: 404 for an unknown job and another user's alike. */
    async status(jobId: string, ownerId: number) {
      const handle = await findOwnedJob(temporal, VIDEO_JOB_KIND, jobId, ownerId);
      const state = handle && (await stateOf(handle));
      if (!state) throw new NotFoundError(`No video job ${jobId.slice(0, 64)} among yours`);
      return present(jobId, state);
    },

    /**
     * Takes the upload link for one upload: the job must still wait for one, and no other upload may
     * have begun. Returns the job and the time the upload must be complete by.
     */
    async beginUpload(token: string, marginMs = 0): Promise<{ jobId: string; deadline: number }> {
      const jobId = await jobOfLink('upload', token);
      const state = await stateOf(handleOf(jobId));
      if (!state) throw new NotFoundError('No such upload link');
      if (state.status !== 'awaiting_upload')
        throw new GoneError(
          `This upload link is no longer usable: the job is ${state.status}${state.reason ? ` (${state.reason})` : ''}`,
        );
      if (Date.now() >= state.uploadExpiresAt - marginMs) throw new GoneError('This upload link has expired');
      if (!(await kv.setIfAbsent(`video:upload-used:${jobId}`, '1', USED_MARK_SECONDS)))
        throw new GoneError('This upload link was already used: it takes one upload');
      return { jobId, deadline: state.uploadExpiresAt };
    },

    /**
     * Streams the file into the blob store (never whole in memory): 413 past VIDEO_MAX_BYTES and 415
     * unless it starts as an MP4/MOV does (an `ftyp` box), keeping nothing then and freeing the link
     * for another try. Then the workflow is told, and the media pool takes over.
     */
    async storeUpload(jobId: string, file: Readable): Promise<{ bytes: number }> {
      const key = videoUploadKey(jobId);
      const checked = ftypSignature();
      // An error of the file stream (the request cut off) ends the checked stream too, so the store
      // stops and cleans up; errors after the store is done (the rest of a refused upload) are dropped.
      file.on('error', (err) => checked.destroy(err));
      checked.on('error', () => {}); // the store's promise reports it
      try {
        const stored = await blobs.put(key, file.pipe(checked), {
          maxBytes: config.video.maxBytes,
          contentType: 'video/mp4',
        });
        await handleOf(jobId).signal(videoUploaded, { bytes: stored.size });
        return { bytes: stored.size };
      } catch (err) {
        await blobs.delete(key).catch(() => {}); // a blob store that is away too: the upload link is freed all the same
        if (err instanceof WorkflowNotFoundError)
          throw new GoneError('The job ended (its upload window closed) before the upload was complete');
        await kv.delete(`video:upload-used:${jobId}`);
        throw err;
      }
    },

    /** Frees the upload link after an upload that was refused before anything was stored. */
    async abandonUpload(jobId: string): Promise<void> {
      await kv.delete(`video:upload-used:${jobId}`);
    },

    /**
     * The result, once: the link must be the job's, the job done and its result not yet taken. A HEAD
     * describes it without using it up. While a GET streams, the link is held (a second GET is 410);
     * `settle(true)` after a response that went through the last byte tells the workflow, which
     * deletes the result and ends the job; otherwise the link is freed to resume (with a Range).
     */
    async download(token: string, options: { head?: boolean; range?: ByteRange } = {}) {
      const jobId = await jobOfLink('download', token);
      const state = await stateOf(handleOf(jobId));
      if (!state) throw new NotFoundError('No such download link');
      if (state.status !== 'done' || state.downloaded)
        throw new GoneError(
          'This download link is no longer usable: the job is ' +
            (state.downloaded ? 'done and its result was downloaded' : state.status),
        );
      if (state.downloadExpiresAt !== null && Date.now() >= state.downloadExpiresAt)
        throw new GoneError('This download link has expired');
      const info = await blobs.stat(videoResultKey(jobId));
      if (!info) throw new GoneError('The result is no longer stored');
      const { range } = options;
      if (range && (range.start >= info.size || (range.end !== undefined && range.end < range.start))) {
        throw new AppError(
          'range_not_satisfiable',
          `Range bytes=${range.start}-${range.end ?? ''} is outside the result's ${info.size} bytes`,
          { 'Content-Range': `bytes */${info.size}` },
        );
      }
      const wanted = range ? { start: range.start, end: Math.min(range.end ?? Infinity, info.size - 1) } : undefined;
      const base = { jobId, size: info.size, range: wanted };
      if (options.head) return { ...base, stream: null, settle: async () => {} };
      const mark = `video:downloading:${jobId}`;
      if (!(await kv.setIfAbsent(mark, '1', 6 * 3600)))
        throw new GoneError('This download link is in use by another download: it gives one download');
      // The blob store away (503): the link is freed for the retry the answer invites.
      const got = await blobs.get(videoResultKey(jobId), wanted).catch(async (err: unknown) => {
        await kv.delete(mark).catch(() => {});
        throw err;
      });
      if (!got) {
        await kv.delete(mark);
        throw new GoneError('The result is no longer stored');
      }
      const throughLastByte = !wanted || wanted.end === info.size - 1;
      return {
        ...base,
        stream: got.stream,
        settle: async (finished: boolean) => {
          if (finished && throughLastByte) await handleOf(jobId).signal(videoDownloaded);
          else await kv.delete(mark);
        },
      };
    },
  };
}

export type VideoService = ReturnType<typeof videoService>;
export type VideoJobAnswer = Awaited<ReturnType<VideoService['status']>>;

/** What a job waits for, in words (an MCP task's status message, a tool's summary). */
export function videoNextStep(
  o: Pick<
    VideoJobAnswer,
    | 'job_id'
    | 'status'
    | 'progress'
    | 'reason'
    | 'upload_url'
    | 'upload_expires_at'
    | 'download_url'
    | 'download_expires_at'
  >,
): string {
  switch (o.status) {
    case 'awaiting_upload':
      return (
        `Video job ${o.job_id} is awaiting its upload: POST the file to ${o.upload_url} ` +
        `as multipart/form-data (field "video") before ${o.upload_expires_at}.`
      );
    case 'done':
      return o.download_url
        ? `Video job ${o.job_id} is done: download the result once from ${o.download_url} ` +
            `(before ${o.download_expires_at}).`
        : `Video job ${o.job_id} is done and its result was downloaded.`;
    default:
      return (
        `Video job ${o.job_id} is ${o.status}${o.status === 'processing' ? ` (${o.progress}%)` : ''}` +
        `${o.reason ? `: ${o.reason}` : ''}.`
      );
  }
}
