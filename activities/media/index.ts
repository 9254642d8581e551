// Activities of the media pool for video jobs (workflows/video.ts). Each copies the upload from the
// blob store to a folder of its own (ffprobe and ffmpeg need a seekable file), so any media worker can
// take any step, and a retry after a lost worker starts clean.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import fs from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from '../../lib/blob/index.ts';
import { InvalidInputError } from '../../lib/errors.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import {
  videoBlobPrefix,
  videoOwnerKey,
  videoProgressKey,
  videoJobSeconds,
  videoSlotsKey,
  videoResultKey,
  videoUploadKey,
  type Region,
  type VideoSource,
} from '../../lib/jobs/video.ts';
import { MalformedBoxError, scanBoxes, type BoxScan } from './boxes.ts';
import { FfmpegFailure, probe, regionProblem, removeWithFfmpeg } from './ffmpeg.ts';

/** The contract's limit on the length of a video: 2 hours. */
export const MAX_VIDEO_SECONDS = 2 * 3600;
/** How often a running step tells Temporal it is alive (its heartbeat timeout is 30 s). */
const HEARTBEAT_MS = 5000;

/**
 * `downloadTtlSeconds`: how long a result waits for its download (VIDEO_DOWNLOAD_TTL_SECONDS), which the
 * rest of a job's longest life counts when a step renews its slot.
 */
export function createMediaActivities(deps: { blobs: BlobStore; kv: KvStore; downloadTtlSeconds: number }) {
  /**
   * Keeps the job's slot among its owner's open jobs, and whose job it is, for the rest of its longest
   * life from now: a step may start long after the job did, when the media workers had a queue. A slot
   * the job no longer holds is not taken again. The key-value store away, the step goes on without it
   * (the user's job is not failed for the bound's bookkeeping).
   */
  async function keepSlot(jobId: string): Promise<void> {
    try {
      const owner = await deps.kv.get(videoOwnerKey(jobId));
      if (owner === null) return;
      const rest = videoJobSeconds(0, deps.downloadTtlSeconds);
      await deps.kv.set(videoOwnerKey(jobId), owner, rest);
      await deps.kv.lease(videoSlotsKey(Number(owner)), jobId, 0, rest); // a limit of 0: renews, never takes
    } catch {
      // renewed at the next step, or not: the lease's first life still bounds it
    }
  }

  /** Runs `work` in a fresh folder, heartbeating meanwhile; the folder is removed after, whatever happens. */
  async function inWorkFolder<T>(
    jobId: string,
    work: (dir: string, progress: { percent: number }) => Promise<T>,
  ): Promise<T> {
    const ctx = Context.current();
    const progress = { percent: 0 };
    const dir = await mkdtemp(path.join(os.tmpdir(), `netops-video-${jobId}-`));
    const beat = setInterval(() => ctx.heartbeat(progress.percent), HEARTBEAT_MS);
    try {
      return await work(dir, progress);
    } finally {
      clearInterval(beat);
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function copyUpload(jobId: string, dir: string): Promise<{ file: string; size: number }> {
    const got = await deps.blobs.get(videoUploadKey(jobId));
    if (!got) throw new InvalidInputError('the upload is no longer stored (the job ended meanwhile)');
    const file = path.join(dir, 'upload.mp4');
    await pipeline(got.stream, fs.createWriteStream(file));
    return { file, size: got.info.size };
  }

  return {
    /**
     * What the upload is, refusing what must not be processed: not an MP4/MOV, a C2PA manifest (editing
     * would silently drop its signed provenance), not a readable video, longer than 2 hours, a region
     * outside the frame. Each refusal is the job's failure reason.
     */
    async inspectVideo(jobId: string, regions: Region[]): Promise<VideoSource> {
      await keepSlot(jobId);
      return inWorkFolder(jobId, async (dir) => {
        const { file, size } = await copyUpload(jobId, dir);
        const handle = await open(file);
        let boxes: BoxScan;
        try {
          boxes = await scanBoxes(handle, size);
        } catch (err) {
          if (err instanceof MalformedBoxError)
            throw new InvalidInputError(`the upload is not a well-formed MP4/MOV file: ${err.message}`);
          throw err;
        } finally {
          await handle.close();
        }
        if (boxes.first !== 'ftyp')
          throw new InvalidInputError('the upload is not an MP4/MOV file (it does not start with an ftyp box)');
        if (boxes.c2pa)
          throw new InvalidInputError(
            `the upload carries a C2PA manifest (a C2PA uuid box, ${boxes.c2pa}): it records the video's ` +
              `signed provenance, which editing would silently drop, so it is not processed`,
          );
        let source: VideoSource;
        try {
          source = await probe(file);
        } catch (err) {
          throw new InvalidInputError((err as Error).message);
        }
        if (source.duration_seconds > MAX_VIDEO_SECONDS)
          throw new InvalidInputError(
            `the video lasts ${source.duration_seconds} s, more than the limit of 2 hours (${MAX_VIDEO_SECONDS} s)`,
          );
        const problem = regions.map((r, i) => regionProblem(r, i, source)).find((p) => p !== null);
        if (problem) throw new InvalidInputError(problem);
        return source;
      });
    },

    /** Removes the regions with ffmpeg and stores the result; progress goes to the heartbeat and the store. */
    async removeRegions(jobId: string, regions: Region[], source: VideoSource): Promise<{ bytes: number }> {
      await keepSlot(jobId);
      const ctx = Context.current();
      return inWorkFolder(jobId, async (dir, progress) => {
        const { file } = await copyUpload(jobId, dir);
        const output = path.join(dir, 'result.mp4');
        const report = (percent: number) => {
          if (percent === progress.percent) return;
          progress.percent = percent;
          ctx.heartbeat(percent);
          // the status shows the last one that landed
          deps.kv.set(videoProgressKey(jobId), String(percent), 24 * 3600).catch(() => {});
        };
        try {
          await removeWithFfmpeg(file, output, regions, source, report, ctx.cancellationSignal);
        } catch (err) {
          // ffmpeg's own failure repeats on any worker: the job fails with it at once.
          if (err instanceof FfmpegFailure) throw ApplicationFailure.nonRetryable(err.message, 'FfmpegFailure');
          throw err;
        }
        ctx.cancellationSignal.throwIfAborted(); // a cancelled job stores no result
        const stored = await deps.blobs.put(videoResultKey(jobId), fs.createReadStream(output), {
          contentType: 'video/mp4',
        });
        return { bytes: stored.size };
      });
    },

    /** Deletes the upload once it is processed (the result stays until its download). */
    async deleteUpload(jobId: string): Promise<void> {
      await deps.blobs.delete(videoUploadKey(jobId));
    },

    /**
     * Deletes every blob of the job and its progress entry, and frees its owner's slot (deleting what is
     * not there is fine): the job's last activity, whatever its ending.
     */
    async deleteJobBlobs(jobId: string): Promise<void> {
      for (const key of await deps.blobs.list(videoBlobPrefix(jobId))) await deps.blobs.delete(key);
      await deps.kv.delete(videoProgressKey(jobId));
      const owner = await deps.kv.get(videoOwnerKey(jobId));
      if (owner !== null) await deps.kv.release(videoSlotsKey(Number(owner)), jobId);
    },
  };
}

export type MediaActivities = ReturnType<typeof createMediaActivities>;
