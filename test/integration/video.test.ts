// Video jobs end to end, through REST and through an MCP client: test videos made here with ffmpeg (a
// grey frame with a white box at a known place, a tone), uploaded once, processed by the media pool,
// downloaded once; and every refusal. The blob store is listed through the store itself afterwards.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore, type BlobStore } from '../../lib/blob/index.ts';
import { loadConfig } from '../../lib/config.ts';
import { C2PA_UUID } from '../../activities/media/boxes.ts';
import { call, expectErrorShape, newAccount, targets } from '../support/client.ts';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectedClient, newUser } from '../support/mcp.ts';
import { greyClip } from '../support/videos.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The white box drawn on the grey test video, and a place far from it. */
const BOX = { x: 200, y: 40, width: 60, height: 40 };
const ELSEWHERE = { x: 40, y: 160, width: 60, height: 40 };

let dir: string;
let clip: Buffer; // 3 s, 320x240, 25 fps, grey with a white box, a 440 Hz tone
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'video-test-'));
  const file = path.join(dir, 'clip.mp4');
  await greyClip(file, { box: BOX, toneHz: 440 });
  clip = await readFile(file);
});

/** Mean luma of a rectangle of the frame at 1.5 s. */
async function meanLuma(video: Buffer, r: typeof BOX): Promise<number> {
  const file = path.join(dir, `probe-${Math.random().toString(36).slice(2)}.mp4`);
  await writeFile(file, video);
  const { stdout } = await run(
    'ffmpeg',
    [
      '-v',
      'error',
      '-ss',
      '1.5',
      '-i',
      file,
      '-vf',
      `crop=${r.width}:${r.height}:${r.x}:${r.y},format=gray`,
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-',
    ],
    { encoding: 'buffer', maxBuffer: 1 << 20 },
  );
  return (stdout as Buffer).reduce((a, b) => a + b, 0) / (stdout as Buffer).length;
}

async function probe(video: Buffer) {
  const file = path.join(dir, `probe-${Math.random().toString(36).slice(2)}.mp4`);
  await writeFile(file, video);
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_streams',
    '-show_format',
    file,
  ]);
  return JSON.parse(stdout) as {
    streams: Array<{ codec_type: string; width?: number; height?: number }>;
    format: { duration: string };
  };
}

const upload = (url: string, bytes: Buffer, name = 'clip.mp4', field = 'video') => {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(bytes)], { type: 'video/mp4' }), name);
  return fetch(url, { method: 'POST', body: form });
};

describe.each(targets())('video jobs ($name)', (target) => {
  let blobs: BlobStore;
  beforeAll(async () => {
    const config = loadConfig({ ...target.env });
    blobs = await createBlobStore(config.s3, config.dataDir);
  });
  afterAll(() => blobs?.close());
  const account = newAccount(target);
  const start = async (json: unknown) =>
    call(target, 'POST', '/api/v1/video/watermark-jobs', { key: (await account).key, json });
  const status = async (id: string) =>
    call(target, 'GET', `/api/v1/video/watermark-jobs/${id}`, { key: (await account).key });
  const until = async (id: string, done: (s: any) => boolean, ms = 60_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const s = (await status(id)).body;
      if (done(s) || Date.now() > deadline) return s;
      await sleep(300);
    }
  };
  const stored = (id: string) => blobs.list(`video/${id}/`);

  it('removes the named region, keeps the rest, the audio and the length; the result downloads once; nothing ' +
    'stays', async () => {
    const started = await start({ service: 'region', regions: [BOX] });
    expect(started.status, started.text).toBe(201);
    expect(started.body).toMatchObject({ success: true, status: 'awaiting_upload', max_upload_bytes: 2_000_000 });
    const { job_id: id, upload_url: uploadUrl } = started.body;
    expect(uploadUrl).toMatch(new RegExp(`^${target.baseUrl}/uploads/${id}\\.[A-Za-z0-9_-]{43}$`));
    expect((await status(id)).body).toMatchObject({ status: 'awaiting_upload', upload_url: uploadUrl });

    const sent = await upload(uploadUrl, clip);
    expect(sent.status, await sent.clone().text()).toBe(202);
    expect(await sent.json()).toMatchObject({ job_id: id, status: 'queued', bytes: clip.length });
    expect((await upload(uploadUrl, clip)).status).toBe(410); // the link takes one upload

    const done = await until(id, (s) => s.status === 'done' || s.status === 'failed');
    expect(done, JSON.stringify(done)).toMatchObject({ status: 'done', progress: 100, upload_url: null });
    expect(done.download_url).toMatch(new RegExp(`^${target.baseUrl}/downloads/${id}\\.`));
    expect(await stored(id)).toEqual([`video/${id}/result.mp4`]); // the upload is gone once processed

    // A HEAD describes the result without using the link; a bad range is 416 and uses nothing either.
    const head = await fetch(done.download_url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const size = Number(head.headers.get('content-length'));
    expect(size).toBeGreaterThan(1000);
    expect((await fetch(done.download_url, { headers: { range: 'bytes=5-3' } })).status).toBe(416);
    // The first part, then the rest (an interrupted download resumed): together, the one download.
    const first = await fetch(done.download_url, { headers: { range: 'bytes=0-99' } });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-99/${size}`);
    const rest = await fetch(done.download_url, { headers: { range: 'bytes=100-' } });
    expect(rest.status).toBe(206);
    const result = Buffer.concat([Buffer.from(await first.arrayBuffer()), Buffer.from(await rest.arrayBuffer())]);
    expect(result.length).toBe(size);
    expect((await fetch(done.download_url)).status).toBe(410); // single use

    // The box moved towards the grey around it; elsewhere is as it was.
    const [boxBefore, boxAfter] = [await meanLuma(clip, BOX), await meanLuma(result, BOX)];
    const [restBefore, restAfter] = [await meanLuma(clip, ELSEWHERE), await meanLuma(result, ELSEWHERE)];
    expect(boxBefore).toBeGreaterThan(200);
    expect(boxAfter).toBeLessThan(boxBefore - 60);
    expect(Math.abs(restAfter - restBefore)).toBeLessThan(3);
    const info = await probe(result);
    expect(info.streams.find((s) => s.codec_type === 'video')).toMatchObject({ width: 320, height: 240 });
    expect(info.streams.some((s) => s.codec_type === 'audio')).toBe(true);
    expect(Number(info.format.duration)).toBeCloseTo(3, 0);

    // The download ends the job: nothing stays in the store.
    await expect.poll(() => stored(id), { timeout: 15_000 }).toEqual([]);
    expect((await status(id)).body).toMatchObject({ status: 'done', downloaded: true, download_url: null });
  }, 90_000);

  it('refuses what it must not do: an AI generator named, an unknown profile, a malformed region', async () => {
    const refused = await start({ service: 'Sora', regions: [BOX] });
    expectErrorShape(refused, 422);
    expect(refused.body.error_code).toBe('provenance_mark');
    expect(refused.body.message).toMatch(/names an AI video generator.*does not remove such disclosure marks/);
    // ...before anything else of the body: without regions (the contract's flow passes service alone) too.
    for (const body of [{ service: 'sora' }, { service: 'Sora', regions: 'all' }]) {
      const alone = await start(body);
      expectErrorShape(alone, 422);
      expect(alone.body.error_code).toBe('provenance_mark');
    }
    const unknown = await start({ service: 'blur-everything', regions: [BOX] });
    expectErrorShape(unknown, 400);
    expect(unknown.body.message).toBe('service: must be one of region (got "blur-everything")');
    for (const [regions, pattern] of [
      [[], /regions: must hold at least one region/],
      [Array.from({ length: 9 }, () => BOX), /regions: must hold at most 8 regions/],
      [[{ ...BOX, width: 0 }], /regions\.0\.width: must be from 1/],
      [[{ ...BOX, x: -1 }], /regions\.0\.x: must be from 0/],
      [
        [{ ...BOX, start_seconds: 2, end_seconds: 1 }],
        /regions\.0\.end_seconds: end_seconds must be after start_seconds/,
      ],
    ] as const) {
      const reply = await start({ service: 'region', regions });
      expectErrorShape(reply, 400);
      expect(reply.body.message).toMatch(pattern);
    }
    // Another user's job is not found, as an unknown one is.
    const mine = (await start({ service: 'region', regions: [BOX] })).body.job_id;
    const other = await newAccount(target);
    expectErrorShape(await call(target, 'GET', `/api/v1/video/watermark-jobs/${mine}`, { key: other.key }), 404);
    expectErrorShape(await status('no-such-job'), 404);
    // One that cannot be a job id is refused before any lookup, naming the path parameter.
    const malformed = await status('no.such.job');
    expectErrorShape(malformed, 400);
    expect(malformed.body.message).toBe('job_id: is not a video job id (up to 64 letters, digits, - and _) (path)');
  });

  it(
    'refuses a non-MP4 (415) and an oversize upload ' + 'mid-stream (413), keeping nothing and the link usable',
    async () => {
      const { job_id: id, upload_url: url } = (await start({ service: 'region', regions: [BOX] })).body;
      const text = await upload(url, Buffer.from('this is not a video at all, just some text'));
      expect(text.status).toBe(415);
      expect((await text.json()).message).toMatch(/not an MP4 or MOV/);
      // 3 MB that start like an MP4, past the 2 MB limit of this suite.
      const big = Buffer.concat([clip.subarray(0, 32), Buffer.alloc(3_000_000, 7)]);
      const oversize = await upload(url, big).catch((err) => err as Error);
      // else the server closed the connection mid-stream
      if (oversize instanceof Response) expect(oversize.status).toBe(413);
      expect(await stored(id)).toEqual([]);
      expect((await status(id)).body.status).toBe('awaiting_upload');
      // A form cut off before its end is refused as invalid input (the API stays up), keeping nothing.
      const boundary = 'cut-off-form';
      const cut = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="video"; ` +
              `filename="a.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
          ),
          clip.subarray(0, 2000),
        ]),
      });
      expect(cut.status).toBe(400);
      expect((await cut.json()).message).toMatch(/^video: /);
      expect(await stored(id)).toEqual([]);
      expect((await upload(url, clip)).status).toBe(202); // the refused tries did not use the link up
    },
  );

  it('fails a job whose upload carries a C2PA manifest, or a region outside the frame, saying why', async () => {
    // A C2PA manifest store box appended at the top level, as signing tools write it.
    const uuidBox = Buffer.concat([
      Buffer.from([0, 0, 0, 40]),
      Buffer.from('uuid'),
      Buffer.from(C2PA_UUID, 'hex'),
      Buffer.alloc(16),
    ]);
    const c2pa = (await start({ service: 'region', regions: [BOX] })).body;
    expect((await upload(c2pa.upload_url, Buffer.concat([clip, uuidBox]))).status).toBe(202);
    const outside = (await start({ service: 'region', regions: [{ x: 300, y: 200, width: 60, height: 60 }] })).body;
    expect((await upload(outside.upload_url, clip)).status).toBe(202);
    const failedC2pa = await until(c2pa.job_id, (s) => s.status === 'failed' || s.status === 'done');
    expect(failedC2pa).toMatchObject({ status: 'failed', download_url: null });
    expect(failedC2pa.reason).toMatch(/C2PA manifest .*top level.*signed provenance/);
    const failedOutside = await until(outside.job_id, (s) => s.status === 'failed' || s.status === 'done');
    expect(failedOutside.reason).toBe('regions[0] (60x60 at 300,200) reaches outside the 320x240 frame');
    await expect
      .poll(async () => [...(await stored(c2pa.job_id)), ...(await stored(outside.job_id))], { timeout: 15_000 })
      .toEqual([]);
  }, 90_000);

  it('expires a job whose upload or download does not come in time, and cleans up (20 s links here); ' +
    'a plan holds its jobs at once until they end', async () => {
    // A free user's one job at once: the next start is refused until that job has ended (here, expired).
    const free = await newAccount(target, 'free');
    const startFree = () =>
      call(target, 'POST', '/api/v1/video/watermark-jobs', {
        key: free.key,
        json: { service: 'region', regions: [BOX] },
      });
    const held = await startFree();
    expect(held.status, held.text).toBe(201);
    const refused = await startFree();
    expectErrorShape(refused, 429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.body.message).toBe(
      'At most 1 video job open at once on the free plan: download the result of one of yours, or wait for one to end',
    );
    const never = (await start({ service: 'region', regions: [BOX] })).body;
    const untaken = (await start({ service: 'region', regions: [BOX] })).body;
    expect((await upload(untaken.upload_url, clip)).status).toBe(202);
    const ready = await until(untaken.job_id, (s) => s.status === 'done' || s.status === 'failed');
    expect(ready.status).toBe('done');
    expect(await stored(untaken.job_id)).toEqual([`video/${untaken.job_id}/result.mp4`]);
    const expiredUpload = await until(never.job_id, (s) => s.status === 'expired', 40_000);
    expect(expiredUpload).toMatchObject({ status: 'expired', upload_url: null });
    expect(expiredUpload.reason).toMatch(/no upload within 20 s/);
    expect((await upload(never.upload_url, clip)).status).toBe(410);
    // The free user's job expired as this one did: its slot is free once the job has ended.
    await expect.poll(async () => (await startFree()).status, { timeout: 15_000, interval: 1_000 }).toBe(201);
    const expiredDownload = await until(untaken.job_id, (s) => s.status === 'expired', 40_000);
    expect(expiredDownload.reason).toMatch(/not downloaded within 20 s/);
    expect((await fetch(ready.download_url)).status).toBe(410);
    await expect.poll(() => stored(untaken.job_id), { timeout: 15_000 }).toEqual([]);
  }, 90_000);

  it('runs the flow through an MCP client: start, upload, poll, download', async () => {
    const user = await newUser(target);
    const { client } = await connectedClient(target, user.email);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'remove_video_watermark')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(tools.find((t) => t.name === 'watermark_status')!.annotations).toMatchObject({ readOnlyHint: true });
    const refused = await client.callTool({
      name: 'remove_video_watermark',
      arguments: { service: 'veo-3', regions: [BOX] },
    });
    expect(refused.isError).toBe(true);
    const started = await client.callTool({
      name: 'remove_video_watermark',
      arguments: { service: 'region', regions: [BOX] },
    });
    expect(started.isError, JSON.stringify(started)).toBeFalsy();
    const job = started.structuredContent as { job_id: string; upload_url: string };
    expect((await upload(job.upload_url, clip)).status).toBe(202);
    let s: any;
    for (let i = 0; i < 200; i++) {
      s = (await client.callTool({ name: 'watermark_status', arguments: { job_id: job.job_id } })).structuredContent;
      if (s.status === 'done' || s.status === 'failed') break;
      await sleep(300);
    }
    expect(s).toMatchObject({ status: 'done' });
    expect((await fetch(s.download_url)).status).toBe(200);
    // Another user's job is an error result that says nothing about it.
    const other = await client.callTool({
      name: 'watermark_status',
      arguments: { job_id: (await start({ service: 'region', regions: [BOX] })).body.job_id },
    });
    expect(other.isError).toBe(true);
    await client.close();
  }, 90_000);

  it('runs a job as an MCP task: working with the upload link, completed with the download link; cancelled, ' +
    'nothing kept', async () => {
    const user = await newUser(target);
    const { client } = await connectedClient(target, user.email);
    const stranger = (await connectedClient(target, (await newUser(target)).email)).client;
    const created = await client.request(
      {
        method: 'tools/call',
        params: { name: 'remove_video_watermark', arguments: { service: 'region', regions: [BOX] }, task: {} },
      },
      CreateTaskResultSchema,
    );
    const { task } = created;
    expect(task.taskId).toMatch(/^video-job-/);
    expect(task.status).toBe('working');
    const uploadUrl = /POST the file to (\S+) as multipart/.exec(task.statusMessage ?? '')?.[1];
    expect(uploadUrl, task.statusMessage).toMatch(/^http:\/\/.+\/uploads\//);
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({
      status: 'working',
      statusMessage: expect.stringContaining(uploadUrl!),
    });
    await expect(stranger.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    expect((await upload(uploadUrl!, clip)).status).toBe(202);
    // tasks/result waits for the end: the result is ready, with its one download.
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, {
      timeout: 60_000,
    });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const done = result.structuredContent as { status: string; download_url: string; job_id: string };
    expect(done).toMatchObject({ status: 'done', progress: 100 });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({
      status: 'completed',
      statusMessage: expect.stringContaining(done.download_url),
    });
    const got = await fetch(done.download_url);
    expect(got.status).toBe(200);
    expect((await got.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(task.taskId);

    // A job awaiting its upload, cancelled as a task: it ends cancelled, its link is dead, nothing is stored.
    const second = (
      await client.request(
        {
          method: 'tools/call',
          params: { name: 'remove_video_watermark', arguments: { service: 'region', regions: [BOX] }, task: {} },
        },
        CreateTaskResultSchema,
      )
    ).task;
    expect((await client.experimental.tasks.cancelTask(second.taskId)).status).toBe('cancelled');
    const secondUpload = /POST the file to (\S+) as multipart/.exec(second.statusMessage ?? '')![1]!;
    expect((await upload(secondUpload, clip)).status).toBe(410);
    await expect.poll(() => stored(second.taskId.slice('video-job-'.length)), { timeout: 15_000 }).toEqual([]);
    await client.close();
    await stranger.close();
  }, 90_000);
});
