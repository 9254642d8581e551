// Video jobs: processing speed and the upload path's memory.
//
//   npm run bench:video
//
// 1. Speed: a 1080p 30 s clip (made here with ffmpeg: test pattern, a white box, a tone) goes through a
//    job of the embedded service (upload to download link), and the same removal runs as one bare
//    ffmpeg command with the same filter and encoder settings, in the same run. Figures: video seconds
//    per wall second, ours (upload stored to result ready: the media pool's copies, box scan, ffprobe
//    and ffmpeg) beside bare ffmpeg's, and the ratio.
// 2. Memory: a 300 MB upload (curl streaming it from disk) while the API process's resident memory is
//    sampled every 20 ms: its peak over the level before the upload, which must stay flat (the file is
//    streamed to the blob store, never held).
// Set VIDEO_BENCH_SECONDS (default 30) for a shorter clip.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { removalGraph, VIDEO_ENCODING } from '../activities/media/ffmpeg.ts';
import { newAccountKey, startService } from './service.ts';

const run = promisify(execFile);
const SECONDS = Number(process.env.VIDEO_BENCH_SECONDS ?? 30);
const REGION = { x: 1500, y: 60, width: 300, height: 160 };
const UPLOAD_BYTES = 300_000_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-video-'));
const clip = path.join(dir, 'clip.mp4');

console.log(
  `Video benchmark, ${new Date().toISOString()}: a ${SECONDS} s 1920x1080 30 fps clip, one region removed; ` +
    `then a ${UPLOAD_BYTES / 1e6} MB upload`,
);
await run('ffmpeg', [
  '-v',
  'error',
  '-f',
  'lavfi',
  '-i',
  `testsrc2=size=1920x1080:rate=30:duration=${SECONDS}`,
  '-f',
  'lavfi',
  '-i',
  `sine=frequency=440:duration=${SECONDS}`,
  '-vf',
  `drawbox=x=${REGION.x}:y=${REGION.y}:w=${REGION.width}:h=${REGION.height}:color=white:t=fill`,
  '-c:v',
  'libx264',
  '-preset',
  'veryfast',
  '-pix_fmt',
  'yuv420p',
  '-c:a',
  'aac',
  '-shortest',
  clip,
]);

// The peer: bare ffmpeg, the service's filter graph and encoder settings (activities/media/ffmpeg.ts).
const source = {
  width: 1920,
  height: 1080,
  duration_seconds: SECONDS,
  frame_rate: 30,
  video_codec: 'h264',
  has_audio: true,
  audio_codec: 'aac',
};
const { graph, output } = removalGraph([REGION], source);
let began = performance.now();
await run('ffmpeg', [
  '-nostdin',
  '-v',
  'error',
  '-y',
  '-i',
  clip,
  '-filter_complex',
  graph,
  '-map',
  `[${output}]`,
  '-map',
  '0:a?',
  '-map_metadata',
  '0',
  ...VIDEO_ENCODING,
  '-c:a',
  'copy',
  '-movflags',
  '+faststart',
  path.join(dir, 'bare.mp4'),
]);
const bareSeconds = (performance.now() - began) / 1000;

const service = await startService({ VIDEO_UPLOAD_TTL_SECONDS: '3600' });
try {
  const key = await newAccountKey(service.env);
  const startJob = async () => {
    const res = await fetch(`${service.baseUrl}/api/v1/video/watermark-jobs`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ service: 'region', regions: [REGION] }),
    });
    return (await res.json()) as { job_id: string; upload_url: string };
  };
  const upload = (url: string, file: string) =>
    run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-F', `video=@${file};type=video/mp4`, url], {
      maxBuffer: 1 << 20,
    });

  const job = await startJob();
  const sent = await upload(job.upload_url, clip);
  if (sent.stdout !== '202') throw new Error(`upload answered ${sent.stdout}`);
  began = performance.now();
  let status: { status: string; reason?: string; download_url?: string } = { status: 'queued' };
  while (status.status === 'queued' || status.status === 'processing') {
    await sleep(200);
    status = await (
      await fetch(`${service.baseUrl}/api/v1/video/watermark-jobs/${job.job_id}`, { headers: { 'X-API-Key': key } })
    ).json();
  }
  const oursSeconds = (performance.now() - began) / 1000;
  if (status.status !== 'done') throw new Error(`the job ended ${status.status}: ${status.reason}`);
  const result = Buffer.from(await (await fetch(status.download_url!)).arrayBuffer());
  const speed = (s: number) => (SECONDS / s).toFixed(2);
  console.log(
    `\n  processing: netops ${speed(oursSeconds)} video s per wall s (${oursSeconds.toFixed(1)} s from ` +
      `upload to result)   bare ffmpeg ${speed(bareSeconds)} (${bareSeconds.toFixed(1)} s)   ratio ` +
      `${(bareSeconds / oursSeconds).toFixed(2)}`,
  );
  console.log(
    `  result: ${(result.length / 1e6).toFixed(1)} MB, source ${((await readFile(clip)).length / 1e6).toFixed(1)} MB`,
  );

  // The upload path's memory: a 300 MB file that starts as an MP4 does (the clip's first bytes, then filler).
  const big = path.join(dir, 'big.mp4');
  const head = (await readFile(clip)).subarray(0, 64);
  const fh = await open(big, 'w');
  await fh.write(head);
  const block = Buffer.alloc(1 << 20, 0x5a);
  for (let written = head.length; written < UPLOAD_BYTES; written += block.length)
    await fh.write(block.subarray(0, Math.min(block.length, UPLOAD_BYTES - written)));
  await fh.close();
  const rss = async () =>
    Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${service.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  await sleep(2000);
  const before = await rss();
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rss());
      await sleep(20);
    }
  })();
  const bigJob = await startJob();
  began = performance.now();
  const curl = spawn('curl', [
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    '-F',
    `video=@${big};type=video/mp4`,
    bigJob.upload_url,
  ]);
  let code = '';
  curl.stdout.on('data', (d) => (code += d));
  await new Promise((r) => curl.once('close', r));
  const uploadSeconds = (performance.now() - began) / 1000;
  sampling = false;
  await sampler;
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
  console.log(
    `\n  300 MB upload: answered ${code} in ${uploadSeconds.toFixed(1)} s ` +
      `(${(UPLOAD_BYTES / 1e6 / uploadSeconds).toFixed(0)} MB/s); API process RSS ${mb(before)} MiB before, ` +
      `peak ${mb(peak)} MiB: +${mb(peak - before)} MiB`,
  );
} finally {
  await service.stop();
  await rm(dir, { recursive: true, force: true });
}
