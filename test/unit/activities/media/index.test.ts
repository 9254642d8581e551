// The media activities with their real dependencies: a folder blob store, the in-process key-value
// store, and ffprobe and ffmpeg on a one-second clip made here. They read the upload from the store
// (refusing what is not a video, or a region outside the frame), store the result with its progress,
// and delete what the job leaves.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaActivities, type MediaActivities } from '../../../../activities/media/index.ts';
import { createBlobStore, type BlobStore } from '../../../../lib/blob/index.ts';
import { InvalidInputError } from '../../../../lib/errors.ts';
import {
  videoOwnerKey,
  videoProgressKey,
  videoResultKey,
  videoSlotsKey,
  videoUploadKey,
  type VideoSource,
} from '../../../../lib/jobs/video.ts';
import { MemoryKvStore } from '../../../../lib/kv/index.ts';
import { tempDir } from '../../../support/processes.ts';

let blobs: BlobStore;
const kv = new MemoryKvStore();
let activities: MediaActivities;
let clip: Buffer; // 1 s, 160x120, 25 fps, H.264 with an AAC tone
let jobs = 0;

beforeAll(async () => {
  const dir = await tempDir('media-activities');
  const file = path.join(dir, 'clip.mp4');
  await promisify(execFile)('ffmpeg', [
    ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=s=160x120:r=25:d=1', '-f', 'lavfi', '-i', 'sine=d=1'],
    ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file],
  ]);
  clip = await readFile(file);
  blobs = await createBlobStore(undefined, dir);
  activities = createMediaActivities({ blobs, kv, downloadTtlSeconds: 3600 });
});
afterAll(() => blobs?.close());

/** Runs an activity as a worker would: in an activity context, whose heartbeats land in `beats`. */
function inActivity<A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A) {
  // Errors only: the refusals' "Activity failed" warnings are what these tests ask for.
  const context = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const beats: unknown[] = [];
  context.on('heartbeat', (d: unknown) => beats.push(d));
  return { beats, done: context.run(fn, ...args) as Promise<R> };
}

/** A job whose upload `bytes` is stored. */
async function uploaded(bytes: Buffer): Promise<string> {
  const jobId = `job${++jobs}`;
  await blobs.put(videoUploadKey(jobId), bytes);
  return jobId;
}

describe('inspectVideo', () => {
  it('reads what the upload is', async () => {
    const jobId = await uploaded(clip);
    expect(await inActivity(activities.inspectVideo, jobId, [{ x: 0, y: 0, width: 160, height: 120 }]).done).toEqual({
      width: 160,
      height: 120,
      duration_seconds: expect.closeTo(1, 1),
      frame_rate: 25,
      video_codec: 'h264',
      has_audio: true,
      audio_codec: 'aac',
    });
  });

  it(
    "refuses what is not an MP4, a region outside the frame, and an upload no longer stored, as the caller's " +
      'fault',
    async () => {
      const refusal = async (jobId: string, regions = [{ x: 0, y: 0, width: 10, height: 10 }]) => {
        const err = await inActivity(activities.inspectVideo, jobId, regions).done.catch((e: unknown) => e);
        expect(err).toBeInstanceOf(InvalidInputError);
        return (err as Error).message;
      };
      expect(await refusal(await uploaded(Buffer.from('<html>not a video</html>')))).toMatch(
        /^the upload is not a well-formed MP4\/MOV file: /,
      );
      expect(await refusal(await uploaded(clip), [{ x: 150, y: 0, width: 20, height: 10 }])).toBe(
        'regions[0] (20x10 at 150,0) reaches outside the 160x120 frame',
      );
      expect(await refusal('job-without-upload')).toBe('the upload is no longer stored (the job ended meanwhile)');
    },
  );
});

describe('removeRegions, deleteUpload and deleteJobBlobs', () => {
  it('store the result and its progress, then delete the upload, then everything of the job', async () => {
    const jobId = await uploaded(clip);
    const source = (await inActivity(activities.inspectVideo, jobId, []).done) as VideoSource;
    const run = inActivity(activities.removeRegions, jobId, [{ x: 10, y: 10, width: 40, height: 20 }], source);
    const { bytes } = await run.done;
    const stored = await blobs.get(videoResultKey(jobId));
    expect(stored?.info.size).toBe(bytes);
    expect(bytes).toBeGreaterThan(0);
    // ffmpeg's progress, up to 99 (100 is the job's, once the result is stored).
    expect(run.beats.at(-1)).toBe(99);
    expect(
      run.beats.every((b, i) => typeof b === 'number' && b <= 99 && (i === 0 || b >= (run.beats[i - 1] as number))),
    ).toBe(true);
    expect(await kv.get(videoProgressKey(jobId))).toBe('99');

    await inActivity(activities.deleteUpload, jobId).done;
    expect((await blobs.list(`video/${jobId}/`)).sort()).toEqual([videoResultKey(jobId)]);
    await inActivity(activities.deleteJobBlobs, jobId).done;
    expect(await blobs.list(`video/${jobId}/`)).toEqual([]);
    expect(await kv.get(videoProgressKey(jobId))).toBeNull();
    // Deleting what is gone is fine (the workflow repeats it).
    await inActivity(activities.deleteJobBlobs, jobId).done;
  });

  it("deleteJobBlobs frees the job's slot among its owner's open jobs, and only its", async () => {
    const [job, other] = ['slot-job-a', 'slot-job-b'];
    await kv.set(videoOwnerKey(job), '42', 3600);
    expect((await kv.lease(videoSlotsKey(42), job, 2, 3600)).granted).toBe(true);
    expect((await kv.lease(videoSlotsKey(42), other, 2, 3600)).granted).toBe(true);
    expect((await kv.lease(videoSlotsKey(42), 'slot-job-c', 2, 3600)).granted).toBe(false);
    await inActivity(activities.deleteJobBlobs, job).done;
    expect(await kv.lease(videoSlotsKey(42), 'slot-job-c', 2, 3600)).toEqual({ granted: true, held: 2 });
    // Again (the workflow repeats it), and for a job whose owner is not known: nothing else is freed.
    await inActivity(activities.deleteJobBlobs, job).done;
    await inActivity(activities.deleteJobBlobs, 'slot-job-unknown').done;
    expect((await kv.lease(videoSlotsKey(42), 'slot-job-d', 2, 3600)).granted).toBe(false);
  });
});

describe("a step renews its job's slot", () => {
  it('for the rest of the longest life from its start, and takes back no slot the job lost', async () => {
    let now = 0;
    const clocked = new MemoryKvStore(() => now);
    const stepping = createMediaActivities({ blobs, kv: clocked, downloadTtlSeconds: 3600 });
    const jobId = await uploaded(clip);
    // The job's slot (of a plan allowing one) is held for 10 s more when its step starts.
    await clocked.set(videoOwnerKey(jobId), '7', 10);
    expect((await clocked.lease(videoSlotsKey(7), jobId, 1, 10)).granted).toBe(true);
    await inActivity(stepping.inspectVideo, jobId, []).done;
    now += 60_000; // a minute later: without the renewal the slot would be free
    expect(await clocked.get(videoOwnerKey(jobId))).toBe('7');
    expect((await clocked.lease(videoSlotsKey(7), 'another-job', 1, 10)).granted).toBe(false);
    // Freed (the job ended), a later step of it does not take the slot again.
    await clocked.release(videoSlotsKey(7), jobId);
    await inActivity(stepping.inspectVideo, jobId, []).done;
    expect((await clocked.lease(videoSlotsKey(7), 'another-job', 1, 10)).granted).toBe(true);
  });

  it('goes on when the key-value store is away (the job is not failed for it)', async () => {
    const away = new MemoryKvStore();
    away.get = async () => {
      throw new Error('the store is away');
    };
    const stepping = createMediaActivities({ blobs, kv: away, downloadTtlSeconds: 3600 });
    const jobId = await uploaded(clip);
    expect(((await inActivity(stepping.inspectVideo, jobId, []).done) as VideoSource).width).toBe(160);
  });
});
