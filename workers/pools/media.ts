// The `media` pool: activities only, on the `media` task queue (video jobs: ffprobe and ffmpeg).
import type { Worker } from '@temporalio/worker';
import { createMediaActivities } from '../../activities/media/index.ts';
import { Turns } from '../../lib/concurrency/turns.ts';
import { createActivityWorker, type PoolContext } from './pool-worker.ts';

export function createMediaWorker(ctx: PoolContext): Promise<Worker> {
  if (!ctx.storage) throw new Error('the media pool needs storage (the blob store)');
  const { blobs, kv } = ctx.storage;
  const turns = new Turns(ctx.config.video.jobsPerWorker);
  return createActivityWorker('media', ctx, createMediaActivities({ blobs, kv, turns }));
}
