// A user's open video jobs, bounded by the plan: a start holds one of the plan's videoJobsAtOnce slots (a
// lease in the key-value store, held by the job's id) until the job ends. The media pool's last activity
// frees it (activities/media: deleteJobBlobs), whatever the ending; the lease's life bounds it otherwise.
import type { Config } from '../../../lib/config.ts';
import { RateLimitedError } from '../../../lib/errors.ts';
import { videoJobSeconds, videoOwnerKey, videoSlotsKey } from '../../../lib/jobs/video.ts';
import type { KvStore } from '../../../lib/kv/index.ts';
import { PLAN_LIMITS, type Plan } from '../../../lib/plans.ts';

export function videoSlots(kv: KvStore, video: Pick<Config['video'], 'uploadTtlSeconds' | 'downloadTtlSeconds'>) {
  const lifetime = videoJobSeconds(video.uploadTtlSeconds, video.downloadTtlSeconds);
  return {
    /** Holds a slot for `jobId`, else 429 naming the bound (nothing held). */
    async hold(owner: { userId: number; plan: Plan }, jobId: string): Promise<void> {
      const open = PLAN_LIMITS[owner.plan].videoJobsAtOnce;
      await kv.set(videoOwnerKey(jobId), String(owner.userId), lifetime);
      if ((await kv.lease(videoSlotsKey(owner.userId), jobId, open, lifetime)).granted) return;
      await kv.delete(videoOwnerKey(jobId));
      throw new RateLimitedError(
        `At most ${open} video job${open === 1 ? '' : 's'} open at once on the ${owner.plan} plan: ` +
          'download the result of one of yours, or wait for one to end',
        60,
      );
    },

    /** Frees the slot of a job that did not start. */
    free: (ownerId: number, jobId: string) => kv.release(videoSlotsKey(ownerId), jobId),
  };
}
