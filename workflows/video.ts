// A video job: waits for the one upload, has the media pool inspect it (a readable MP4/MOV of at most
// 2 hours, regions inside the frame, no C2PA manifest) and remove the regions, then waits for the one
// download. The state is the job's status for the API (getVideoJobState); whatever the ending
// (done and downloaded, failed, expired, cancelled), every blob of the job is deleted before it ends
// (a terminated workflow runs no code: an operator who terminates one deletes `video/<job_id>/` too).
import * as wf from '@temporalio/workflow';
import type { MediaActivities } from '../activities/media/index.ts';
import { activityFailureMessage } from './activity-failures.ts';
import {
  getVideoJobState,
  TASK_QUEUES,
  videoDownloaded,
  videoUploaded,
  type VideoJobInput,
  type VideoJobState,
} from '../lib/jobs/index.ts';

/**
 * The steps that copy the upload and run ffprobe or ffmpeg, on `taskQueue`: the pool's work queue, whose
 * workers take a bounded number at once (lib/jobs/task-queues.ts), for runs that reached them since it
 * exists (patch `media-work-queue`); on `media` for those that had scheduled them before.
 */
function mediaSteps(taskQueue: string) {
  const { inspectVideo } = wf.proxyActivities<MediaActivities>({
    taskQueue,
    // Copies the upload (at most 300 MB) to the worker and reads its boxes and streams.
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '30 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
  });
  const { removeRegions } = wf.proxyActivities<MediaActivities>({
    taskQueue,
    // A cancelled job waits for ffmpeg to stop before it deletes the blobs, so no result lands after.
    cancellationType: wf.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    // Up to 2 hours of video; the heartbeat (every 5 s, and with ffmpeg's progress) finds a lost worker
    // within 15 s, and the retry runs on another one.
    startToCloseTimeout: '6 hours',
    heartbeatTimeout: '15 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
  });
  return { inspectVideo, removeRegions };
}
const { deleteJobBlobs, deleteUpload } = wf.proxyActivities<MediaActivities>({
  taskQueue: TASK_QUEUES.media,
  startToCloseTimeout: '1 minute',
  // No limit on attempts: until the blob store answers again, so nothing is left behind.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export async function videoJob(input: VideoJobInput): Promise<VideoJobState> {
  const now = Date.now(); // deterministic in workflow code: the time of the workflow task
  const state: VideoJobState = {
    status: 'awaiting_upload',
    progress: 0,
    reason: null,
    uploadExpiresAt: now + input.uploadTtlSeconds * 1000,
    downloadExpiresAt: null,
    uploadBytes: null,
    resultBytes: null,
    source: null,
    downloaded: false,
  };
  let uploadsSignalled = 0;
  wf.setHandler(getVideoJobState, () => state);
  wf.setHandler(videoUploaded, ({ bytes }) => {
    uploadsSignalled++;
    if (state.status === 'awaiting_upload') state.uploadBytes = bytes;
  });
  wf.setHandler(videoDownloaded, () => {
    state.downloaded = true;
  });
  try {
    if (!(await wf.condition(() => state.uploadBytes !== null, input.uploadTtlSeconds * 1000))) {
      return end('expired', `no upload within ${input.uploadTtlSeconds} s of the job's start`);
    }
    state.status = 'queued';
    const queue = wf.patched('media-work-queue') ? TASK_QUEUES.mediaWork : TASK_QUEUES.media;
    const { inspectVideo, removeRegions } = mediaSteps(queue);
    state.source = await inspectVideo(input.jobId, input.regions);
    state.status = 'processing';
    state.resultBytes = (await removeRegions(input.jobId, input.regions, state.source)).bytes;
    await deleteUpload(input.jobId);
    state.progress = 100;
    state.status = 'done';
    state.downloadExpiresAt = Date.now() + input.downloadTtlSeconds * 1000;
    if (!(await wf.condition(() => state.downloaded, input.downloadTtlSeconds * 1000))) {
      return end('expired', `the result was not downloaded within ${input.downloadTtlSeconds} s of being ready`);
    }
    return state;
  } catch (err) {
    if (wf.isCancellation(err)) {
      end('failed', 'cancelled');
      throw err;
    }
    // The activity's own words: a refused upload (C2PA, not a video, too long, a region outside the frame) or a crash.
    const said = activityFailureMessage(err);
    if (said !== undefined) return end('failed', said);
    throw err;
  } finally {
    // Nothing is kept. An upload may still land after an expiry (a slow upload that began in time): its
    // signal arrives while this runs, so the deletion repeats until no new upload came meanwhile.
    await wf.CancellationScope.nonCancellable(async () => {
      let seen: number;
      do {
        seen = uploadsSignalled;
        await deleteJobBlobs(input.jobId);
      } while (seen !== uploadsSignalled);
    });
  }

  function end(status: 'failed' | 'expired', reason: string): VideoJobState {
    state.status = status;
    state.reason = reason;
    return state;
  }
}
