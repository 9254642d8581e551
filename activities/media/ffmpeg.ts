// ffprobe and ffmpeg (Debian's packages on the media workers): what a video is, and the filter graph
// that removes the regions a user named, run with progress read from ffmpeg's -progress output.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import type { Region, VideoSource } from '../../lib/jobs/video.ts';

const run = promisify(execFile);

/** How a cleaned video is encoded: H.264, fast, visually lossless, in the pixel format every player reads. */
export const VIDEO_ENCODING = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-pix_fmt', 'yuv420p'];

/** What ffprobe reads of `path`; an error message in plain words when it is not a readable video. */
export async function probe(path: string): Promise<VideoSource> {
  let out: string;
  try {
    ({ stdout: out } = await run(
      'ffprobe',
      ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', path],
      { maxBuffer: 8 * 1024 * 1024 },
    ));
  } catch (err) {
    const detail = String((err as { stderr?: string }).stderr ?? '')
      .split('\n')[0]
      ?.trim();
    throw new Error(`the upload is not a readable video${detail ? ` (ffprobe: ${detail.slice(0, 200)})` : ''}`);
  }
  type Stream = Record<string, unknown> & {
    tags?: Record<string, string>;
    side_data_list?: Array<{ rotation?: number }>;
  };
  const info = JSON.parse(out) as { streams?: Stream[]; format?: { duration?: string } };
  const video = info.streams?.find((s) => s.codec_type === 'video');
  if (!video || !Number(video.width) || !Number(video.height)) throw new Error('the upload has no video stream');
  const audio = info.streams?.find((s) => s.codec_type === 'audio');
  const [num, den] = String(video.avg_frame_rate ?? video.r_frame_rate ?? '0/1')
    .split('/')
    .map(Number);
  // A phone video stored sideways plays rotated: ffmpeg filters the frame as it plays, so do its regions.
  const rotation = Number(
    video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? video.tags?.rotate ?? 0,
  );
  const sideways = Math.abs(rotation) % 180 === 90;
  return {
    width: Number(sideways ? video.height : video.width),
    height: Number(sideways ? video.width : video.height),
    duration_seconds: Math.round(Number(info.format?.duration ?? video.duration ?? 0) * 1000) / 1000,
    frame_rate: den ? Math.round((num! / den) * 1000) / 1000 : 0,
    video_codec: String(video.codec_name ?? 'unknown'),
    has_audio: audio !== undefined,
    audio_codec: audio ? String(audio.codec_name ?? 'unknown') : null,
  };
}

/** Why a region cannot be removed from a `source`-sized frame, or null. */
export function regionProblem(r: Region, i: number, source: VideoSource): string | null {
  if (r.x + r.width > source.width || r.y + r.height > source.height) {
    return (
      `regions[${i}] (${r.width}x${r.height} at ${r.x},${r.y}) reaches outside the ` +
      `${source.width}x${source.height} frame`
    );
  }
  if (r.start_seconds !== undefined && r.start_seconds >= source.duration_seconds) {
    return `regions[${i}] starts at ${r.start_seconds} s, after the video's end (${source.duration_seconds} s)`;
  }
  return null;
}

/**
 * The filter graph, region after region: `delogo` (interpolates the region from its border) where the
 * region has a pixel of frame around it, else a strong blur of the region laid back over it (a region
 * at the frame's edge has no border on that side). Each only within its time range.
 */
export function removalGraph(regions: readonly Region[], source: VideoSource): { graph: string; output: string } {
  const parts: string[] = [];
  let current = '0:v';
  regions.forEach((r, i) => {
    const from = r.start_seconds ?? 0;
    const enable =
      r.start_seconds === undefined && r.end_seconds === undefined
        ? ''
        : r.end_seconds === undefined
          ? `:enable='gte(t,${from})'`
          : `:enable='between(t,${from},${r.end_seconds})'`;
    const inside = r.x >= 1 && r.y >= 1 && r.x + r.width <= source.width - 1 && r.y + r.height <= source.height - 1;
    const next = `v${i}`;
    if (inside) {
      parts.push(`[${current}]delogo=x=${r.x}:y=${r.y}:w=${r.width}:h=${r.height}${enable}[${next}]`);
    } else {
      // crop needs at least 2x2 (chroma), kept inside the frame; gblur takes a sigma of at most 1024.
      const w = Math.min(source.width, Math.max(2, r.width));
      const h = Math.min(source.height, Math.max(2, r.height));
      const x = Math.max(0, Math.min(r.x, source.width - w));
      const y = Math.max(0, Math.min(r.y, source.height - h));
      const sigma = Math.min(64, Math.max(4, Math.round(Math.min(w, h) / 2)));
      parts.push(
        `[${current}]split[m${i}][s${i}]`,
        `[s${i}]crop=${w}:${h}:${x}:${y},gblur=sigma=${sigma}:steps=3[b${i}]`,
        `[m${i}][b${i}]overlay=${x}:${y}${enable}[${next}]`,
      );
    }
    current = next;
  });
  // H.264 in 4:2:0 needs even sizes: an odd width or height gains one pixel of padding.
  parts.push(`[${current}]pad=ceil(iw/2)*2:ceil(ih/2)*2[out]`);
  return { graph: parts.join(';'), output: 'out' };
}

/** Audio codecs an MP4 carries as they are; any other (a MOV's PCM, say) is encoded to AAC. */
const MP4_AUDIO = new Set(['aac', 'mp3', 'ac3', 'eac3', 'alac', 'opus', 'flac']);

/** ffmpeg ended with an error of its own (not stopped): the same input would fail again. */
export class FfmpegFailure extends Error {
  override name = 'FfmpegFailure';
}

/**
 * Writes `output`: the regions removed, H.264 at the source's size (odd sizes padded to even) and
 * frame rate, the audio copied as it is when MP4 carries it (else AAC), the container's metadata kept. `onProgress`
 * gets the percent done; `signal` stops ffmpeg.
 */
export function removeWithFfmpeg(
  input: string,
  output: string,
  regions: readonly Region[],
  source: VideoSource,
  onProgress: (percent: number) => void,
  signal: AbortSignal,
): Promise<void> {
  const { graph, output: label } = removalGraph(regions, source);
  const audio =
    source.audio_codec === null || MP4_AUDIO.has(source.audio_codec)
      ? ['-c:a', 'copy']
      : ['-c:a', 'aac', '-b:a', '192k'];
  const args = [
    '-nostdin',
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-i',
    input,
    '-filter_complex',
    graph,
    '-map',
    `[${label}]`,
    '-map',
    '0:a?',
    '-map_metadata',
    '0',
    ...VIDEO_ENCODING,
    ...audio,
    '-movflags',
    '+faststart',
    '-progress',
    'pipe:1',
    '-nostats',
    output,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'], signal, killSignal: 'SIGKILL' });
    let stderr = '';
    let pending = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const us = /^out_time_us=(\d+)/.exec(line);
        if (us && source.duration_seconds > 0)
          onProgress(Math.min(99, Math.floor((Number(us[1]) / 1e6 / source.duration_seconds) * 100)));
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve()
        : reject(
            signal.aborted
              ? new Error('ffmpeg stopped: the job was cancelled')
              : new FfmpegFailure(
                  `ffmpeg could not process the video (exit ${code}): ${stderr.trim().split('\n').pop() ?? ''}`,
                ),
          ),
    );
  });
}
