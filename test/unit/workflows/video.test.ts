// A video job on a real Temporal server: it waits for the upload, has it inspected and processed,
// waits for the download, and deletes every blob of the job whatever the ending (done, refused,
// expired, cancelled), again when an upload lands during the deletion. The media activities are stubs
// that log what they did, in order.
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MediaActivities } from '../../../activities/media/index.ts';
import { InvalidInputError } from '../../../lib/errors.ts';
import {
  getVideoJobState,
  videoDownloaded,
  videoUploaded,
  type VideoJobInput,
  type VideoSource,
} from '../../../lib/jobs/index.ts';
import { gate, until, useWorkflowEnv } from '../../support/workflow-env.ts';

const source: VideoSource = {
  width: 640,
  height: 360,
  duration_seconds: 12,
  frame_rate: 25,
  video_codec: 'h264',
  has_audio: true,
  audio_codec: 'aac',
};
const regions = [{ x: 10, y: 10, width: 100, height: 40 }];

/** What the stubs did, in order. */
let log: string[] = [];
const media = {
  inspectVideo: vi.fn<MediaActivities['inspectVideo']>(),
  removeRegions: vi.fn<MediaActivities['removeRegions']>(),
  deleteUpload: vi.fn<MediaActivities['deleteUpload']>(),
  deleteJobBlobs: vi.fn<MediaActivities['deleteJobBlobs']>(),
};

const env = useWorkflowEnv({
  workflows: 'workflows/video.ts',
  activities: { media },
  // Heartbeats reach the server at once: a cancellation reaches the heartbeating stub at once.
  activityWorkerOptions: { maxHeartbeatThrottleInterval: '50ms' },
  // The media pool's worker takes one step that copies and runs ffprobe or ffmpeg at a time.
  config: { VIDEO_JOBS_PER_WORKER: '1' },
});
beforeEach(() => {
  log = [];
  media.inspectVideo.mockReset().mockImplementation(async () => {
    log.push('inspectVideo');
    return source;
  });
  media.removeRegions.mockReset().mockImplementation(async () => {
    log.push('removeRegions');
    return { bytes: 4321 };
  });
  media.deleteUpload.mockReset().mockImplementation(async () => {
    log.push('deleteUpload');
  });
  media.deleteJobBlobs.mockReset().mockImplementation(async () => {
    log.push('deleteJobBlobs');
  });
});

let jobs = 0;
const input = (ttl: Partial<Pick<VideoJobInput, 'uploadTtlSeconds' | 'downloadTtlSeconds'>> = {}): VideoJobInput => ({
  jobId: `job-${++jobs}`,
  service: 'region',
  regions,
  uploadTtlSeconds: 3600,
  downloadTtlSeconds: 3600,
  ...ttl,
});

describe('videoJob', () => {
  it('waits for the upload, processes it, waits for the download, then deletes the blobs and ends done', async () => {
    const job = input();
    const before = Date.now();
    const handle = await env.start('videoJob', [job]);
    const waiting = await handle.query(getVideoJobState);
    expect(waiting).toMatchObject({
      status: 'awaiting_upload',
      progress: 0,
      uploadBytes: null,
      downloadExpiresAt: null,
    });
    // An hour from the workflow's start (its clock is the server's, this machine's).
    expect(waiting.uploadExpiresAt).toBeGreaterThanOrEqual(before + 3600_000);
    expect(waiting.uploadExpiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);
    expect(log).toEqual([]);

    await handle.signal(videoUploaded, { bytes: 123_456 });
    const done = await until('the result', async () => {
      const s = await handle.query(getVideoJobState);
      return s.status === 'done' && s;
    });
    expect(done).toMatchObject({ progress: 100, uploadBytes: 123_456, resultBytes: 4321, source, downloaded: false });
    expect(done.downloadExpiresAt).toBeGreaterThanOrEqual(before + 3600_000);
    expect(done.downloadExpiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);
    expect(log).toEqual(['inspectVideo', 'removeRegions', 'deleteUpload']);
    expect(media.inspectVideo).toHaveBeenCalledWith(job.jobId, regions);
    expect(media.removeRegions).toHaveBeenCalledWith(job.jobId, regions, source);
    expect(media.deleteUpload).toHaveBeenCalledWith(job.jobId);

    await handle.signal(videoDownloaded);
    expect(await handle.result()).toEqual({ ...done, downloaded: true });
    expect(log).toEqual(['inspectVideo', 'removeRegions', 'deleteUpload', 'deleteJobBlobs']);
    expect(media.deleteJobBlobs).toHaveBeenCalledWith(job.jobId);
    await env.record(handle, 'video-job');
  });

  it("fails a refused upload with the media pool's reason, at once, and deletes the blobs", async () => {
    media.inspectVideo.mockImplementation(async () => {
      log.push('inspectVideo');
      // An AppError: the pools' interceptor makes it a failure no retry can fix.
      throw new InvalidInputError('the upload carries a C2PA manifest');
    });
    const handle = await env.start('videoJob', [input()]);
    await handle.signal(videoUploaded, { bytes: 10 });
    expect(await handle.result()).toMatchObject({
      status: 'failed',
      reason: 'the upload carries a C2PA manifest',
      uploadBytes: 10,
      resultBytes: null,
    });
    expect(log).toEqual(['inspectVideo', 'deleteJobBlobs']);
  });

  it('expires without an upload, and deletes again when the upload lands during the deletion', async () => {
    const deleting = gate();
    const uploadSignalled = gate();
    media.deleteJobBlobs.mockImplementation(async () => {
      log.push('deleteJobBlobs');
      if (media.deleteJobBlobs.mock.calls.length === 1) {
        deleting.open();
        await Promise.race([uploadSignalled.opened, Context.current().cancelled]);
      }
    });
    const handle = await env.start('videoJob', [input({ uploadTtlSeconds: 1 })]);
    await deleting.opened;
    await handle.signal(videoUploaded, { bytes: 99 });
    uploadSignalled.open();
    expect(await handle.result()).toMatchObject({
      status: 'expired',
      reason: "no upload within 1 s of the job's start",
      uploadBytes: null,
    });
    expect(log).toEqual(['deleteJobBlobs', 'deleteJobBlobs']);
  });

  it('expires when the result is not downloaded in time, and deletes the blobs', async () => {
    const handle = await env.start('videoJob', [input({ downloadTtlSeconds: 1 })]);
    await handle.signal(videoUploaded, { bytes: 10 });
    expect(await handle.result()).toMatchObject({
      status: 'expired',
      reason: 'the result was not downloaded within 1 s of being ready',
      progress: 100,
      resultBytes: 4321,
      downloaded: false,
    });
    expect(log).toEqual(['inspectVideo', 'removeRegions', 'deleteUpload', 'deleteJobBlobs']);
  });

  it('a cancelled job waits for the processing to stop, then deletes the blobs and ends cancelled', async () => {
    const processing = gate();
    media.removeRegions.mockImplementation(async () => {
      log.push('removeRegions');
      const ctx = Context.current();
      processing.open();
      try {
        for (;;) {
          ctx.heartbeat();
          await ctx.sleep(20);
        }
      } finally {
        await sleep(300); // ffmpeg takes a moment to stop: nothing may be deleted meanwhile
        log.push('removeRegions stopped');
      }
    });
    const handle = await env.start('videoJob', [input()]);
    await handle.signal(videoUploaded, { bytes: 10 });
    await processing.opened;
    await handle.cancel();
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(log).toEqual(['inspectVideo', 'removeRegions', 'removeRegions stopped', 'deleteJobBlobs']);
    expect(await handle.query(getVideoJobState)).toMatchObject({ status: 'failed', reason: 'cancelled' });
  });

  it('sends the steps that copy and process to the work queue, which a worker takes one at a time here', async () => {
    let running = 0;
    let most = 0;
    const step = async <T>(result: T) => {
      running += 1;
      most = Math.max(most, running);
      await sleep(300);
      running -= 1;
      return result;
    };
    media.inspectVideo.mockImplementation(() => step(source));
    media.removeRegions.mockImplementation(() => step({ bytes: 1 }));
    const handles = await Promise.all([input(), input(), input()].map((job) => env.start('videoJob', [job])));
    for (const handle of handles) await handle.signal(videoUploaded, { bytes: 1000 });
    await until('three results', async () => {
      const states = await Promise.all(handles.map((h) => h.query(getVideoJobState)));
      return states.every((st) => st.status === 'done');
    });
    expect(media.removeRegions).toHaveBeenCalledTimes(3);
    expect(most).toBe(1); // six steps, never two at once
    const { events } = await handles[0]!.fetchHistory();
    const queues = (events ?? []).flatMap((e) => {
      const a = e.activityTaskScheduledEventAttributes;
      return a ? [`${a.activityType?.name} ${a.taskQueue?.name}`] : [];
    });
    expect(queues).toEqual(['inspectVideo media-work', 'removeRegions media-work', 'deleteUpload media']);
    for (const handle of handles) {
      await handle.signal(videoDownloaded);
      await handle.result();
    }
  });

  it('replays the recorded history with the current code', async () => {
    await env.replay('video-job');
  });
});
