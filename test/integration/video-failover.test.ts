// A media worker dies in the middle of a video job: its step stops heartbeating, Temporal retries it on
// another media worker, and the job still ends done with a result. Its own small cluster (one process
// per role), so that the victim is the only media worker when it dies.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startCluster } from '../support/processes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('video job failover', () => {
  let cluster: Awaited<ReturnType<typeof startCluster>> | undefined;
  afterAll(() => cluster?.stop());

  it('retries the processing of a killed media worker on another one, and the job still completes', {
    timeout: 180_000,
  }, async () => {
    // 30 s of 1280x720: several seconds of ffmpeg, time enough to kill its worker in the middle.
    const clip = path.join(await mkdtemp(path.join(os.tmpdir(), 'video-failover-')), 'clip.mp4');
    await promisify(execFile)('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=1280x720:rate=30:duration=30',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      clip,
    ]);
    cluster = await startCluster('video-failover');
    const { api, key, role } = cluster;
    await role('worker:workflows');
    const victim = await role('worker:media');

    const status = async (id: string) =>
      (
        await fetch(`${api.baseUrl}/api/v1/video/watermark-jobs/${id}`, { headers: { 'X-API-Key': key } })
      ).json() as Promise<any>;
    const job = await (
      await fetch(`${api.baseUrl}/api/v1/video/watermark-jobs`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ service: 'region', regions: [{ x: 100, y: 100, width: 200, height: 120 }] }),
      })
    ).json();
    const form = new FormData();
    form.append('video', new Blob([new Uint8Array(await readFile(clip))], { type: 'video/mp4' }), 'clip.mp4');
    expect((await fetch(job.upload_url, { method: 'POST', body: form })).status).toBe(202);

    let s: any;
    for (let i = 0; i < 600 && s?.status !== 'processing'; i++) {
      s = await status(job.job_id);
      await sleep(50);
    }
    expect(s.status, 'the job never reached processing').toBe('processing');
    process.kill(victim.pid, 'SIGKILL');
    await role('worker:media');

    for (let i = 0; i < 600 && ['queued', 'processing'].includes(s.status); i++) {
      await sleep(250);
      s = await status(job.job_id);
    }
    expect(s, JSON.stringify(s)).toMatchObject({ status: 'done', progress: 100 });
    const got = await fetch(s.download_url);
    expect(got.status).toBe(200);
    expect((await got.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  });
});
