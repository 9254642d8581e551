// The `media` pool: activities only (video jobs: ffprobe and ffmpeg), as two workers of one process:
// one on the `media` task queue (the deletions), one on `media-work` (the steps that copy an upload and
// run ffprobe or ffmpeg), which takes at most VIDEO_JOBS_PER_WORKER of them at once. Temporal holds a
// step's slot until its function returns, so a cancelled ffmpeg counts until it has stopped.
import type { Worker, WorkerOptions } from '@temporalio/worker';
import { createMediaActivities } from '../../activities/media/index.ts';
import { TASK_QUEUES } from '../../lib/jobs/task-queues.ts';
import { createActivityWorker, type PoolContext } from './pool-worker.ts';

/** The pool's two workers running `activities`: the media activities, or those a workflow test gives. */
export function createMediaWorkers(
  ctx: PoolContext,
  activities: object,
  options: Pick<WorkerOptions, 'maxHeartbeatThrottleInterval'> = {},
): Promise<Worker[]> {
  return Promise.all([
    createActivityWorker('media', ctx, activities, options),
    createActivityWorker('media', ctx, activities, {
      ...options,
      taskQueue: TASK_QUEUES.mediaWork,
      maxConcurrentActivityTaskExecutions: ctx.config.video.jobsPerWorker,
    }),
  ]);
}

export function createMediaWorker(ctx: PoolContext): Promise<Worker[]> {
  if (!ctx.storage) throw new Error('the media pool needs storage (the blob store)');
  const { blobs, kv } = ctx.storage;
  const { downloadTtlSeconds } = ctx.config.video;
  return createMediaWorkers(ctx, createMediaActivities({ blobs, kv, downloadTtlSeconds }));
}
