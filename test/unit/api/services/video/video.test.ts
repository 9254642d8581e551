// A user's video jobs are bounded by the plan: a start holds one of the plan's videoJobsAtOnce slots
// until the job ends (the media pool's last activity frees it); past them, 429 and nothing started.
// Temporal is stubbed here (it only records the starts): the workflows run in test/integration/video.test.ts.
// The links' secret is in a PGlite database.
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { videoService } from '../../../../../api/services/video/video.ts';
import { loadConfig } from '../../../../../lib/config.ts';
import { videoOwnerKey, videoSlotsKey } from '../../../../../lib/jobs/video.ts';
import { MemoryKvStore } from '../../../../../lib/kv/index.ts';
import { PLAN_LIMITS } from '../../../../../lib/plans.ts';
import { contractDatabases, useDatabase } from '../../../../support/databases.ts';

const database = useDatabase(contractDatabases('video-service')[0]![1]);

function service(fail = false) {
  const kv = new MemoryKvStore();
  const started: string[] = [];
  const temporal = {
    workflow: {
      start: async (_workflow: string, o: { workflowId: string }) => {
        if (fail) throw new Error('Temporal is away');
        started.push(o.workflowId);
        return { workflowId: o.workflowId };
      },
    },
  } as unknown as Client;
  const video = videoService({
    config: loadConfig({}),
    db: database.db,
    kv,
    blobs: undefined as never,
    temporal,
  });
  return { video, kv, started };
}
const body = { service: 'region', regions: [{ x: 0, y: 0, width: 10, height: 10 }] } as never;

describe('video jobs open at once', () => {
  it("starts the plan's number, refuses the next with 429 naming it, and starts again once one ends", async () => {
    const { video, kv, started } = service();
    const free = { userId: 7, plan: 'free' as const };
    expect(PLAN_LIMITS.free.videoJobsAtOnce).toBe(1);
    const first = await video.start(body, free);
    await expect(video.start(body, free)).rejects.toMatchObject({
      status: 429,
      headers: { 'Retry-After': '60' },
      message:
        'At most 1 video job open at once on the free plan: ' +
        'download the result of one of yours, or wait for one to end',
    });
    expect(started).toHaveLength(1);
    // Another user's jobs are their own.
    await video.start(body, { userId: 8, plan: 'free' });
    // The job ends: the last activity frees its slot, as activities/media does.
    expect(await kv.get(videoOwnerKey(first.job_id))).toBe('7');
    await kv.release(videoSlotsKey(7), first.job_id);
    await video.start(body, free);
    expect(started).toHaveLength(3);
  });

  it('holds no slot for a start Temporal refused', async () => {
    const { video, kv } = service(true);
    const free = { userId: 9, plan: 'free' as const };
    await expect(video.start(body, free)).rejects.toThrow('Temporal is away');
    expect((await kv.lease(videoSlotsKey(9), 'probe', 1, 60)).granted).toBe(true);
  });
});
