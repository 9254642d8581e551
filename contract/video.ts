// Video jobs: the start body (a removal profile and the regions of the user's own footage to remove),
// and the refusal of any request to strip an AI video generator's disclosure mark.
import { z } from 'zod';
import { ProvenanceMarkError } from '../lib/errors.ts';
import { VIDEO_SERVICES, VIDEO_STATUSES } from '../lib/jobs/video.ts';
import { namesAiVideoGenerator } from './ai-video-generators.ts';
import { created, get, ok, operations, post } from './operation.ts';
import { described } from './validate.ts';
import { PATH_PARAMS, wholeNumber } from './input-fields.ts';

export const MAX_REGIONS = 8;
const MAX_PIXELS = 16_384;
const MAX_SECONDS = 2 * 3600;

const pixels = (min: number) => wholeNumber(min, MAX_PIXELS, { of: 'pixels' });
const second = z
  .number({ error: 'must be a number of seconds' })
  .min(0, `must be from 0 to ${MAX_SECONDS}`)
  .max(MAX_SECONDS, `must be from 0 to ${MAX_SECONDS}`);

export const region = z
  .object({
    x: described(pixels(0), 'Left edge, pixels from the left of the source frame'),
    y: described(pixels(0), 'Top edge, pixels from the top'),
    width: pixels(1),
    height: pixels(1),
    start_seconds: described(second.optional(), 'Only from this time of the video on'),
    end_seconds: described(second.optional(), 'Only until this time'),
  })
  .strict()
  .refine((r) => r.start_seconds === undefined || r.end_seconds === undefined || r.end_seconds > r.start_seconds, {
    message: 'end_seconds must be after start_seconds',
    path: ['end_seconds'],
  });

const regions = z
  .array(region, { error: 'must be an array of {x, y, width, height} rectangles' })
  .min(1, 'must hold at least one region')
  .max(MAX_REGIONS, `must hold at most ${MAX_REGIONS} regions`);

/**
 * `service` stays a plain string here: a generator's name is refused with 422 before anything else
 * of the body is looked at (its regions do not matter: no regions make that job one we do), and any
 * other unknown value with 400 listing the profiles (api/services/video/video.ts).
 */
export const videoJobBody = z.preprocess(
  (body) => {
    const service = (body as { service?: unknown } | null)?.service;
    if (typeof service === 'string' && namesAiVideoGenerator(service)) {
      throw new ProvenanceMarkError(
        `service: "${service.trim().slice(0, 60)}" names an AI video generator. Its mark tells viewers the ` +
          'video is generated, and this service does not remove such disclosure marks; it removes marks you ' +
          'name on your own footage (service "region", with the regions of your logo or timestamp).',
      );
    }
    return body;
  },
  z.strictObject({
    service: z.string({ error: `must be one of ${VIDEO_SERVICES.join(', ')}` }).trim(),
    regions,
  }),
);
export type VideoJobBody = z.output<typeof videoJobBody>;

/**
 * The start as the MCP tool remove_video_watermark takes it: the body's fields, `regions` optional
 * there so that the body's own checks speak (REST's): a generator's name is refused before the regions.
 */
export const videoJobToolFields = {
  service: described(z.string(), `The removal profile: ${VIDEO_SERVICES.join(', ')}`),
  regions: described(
    regions.optional(),
    `1 to ${MAX_REGIONS} rectangles to remove, in pixels of the source frame (required)`,
  ),
};

/** The job a status names in its path ({job_id}), and the MCP tool watermark_status in its arguments. */
export const jobIdParams = z.strictObject({ job_id: PATH_PARAMS.job_id });

const source = z.object({
  width: z.number(),
  height: z.number(),
  duration_seconds: z.number(),
  frame_rate: z.number(),
  video_codec: z.string(),
  has_audio: z.boolean(),
  audio_codec: z.string().nullable(),
});

/** A job as every door answers it (the start adds `max_upload_bytes` and `message`). */
export const videoJobAnswer = z.object({
  success: z.literal(true),
  job_id: z.string(),
  status: z.enum(VIDEO_STATUSES),
  progress: z.number().optional().describe('Percent processed (from ffmpeg), 100 once done'),
  upload_url: z.string().nullable().optional().describe('The one-time upload link while the job awaits its upload'),
  upload_expires_at: z.string().nullable().optional(),
  download_url: z.string().nullable().optional().describe('The single-use download link once done'),
  download_expires_at: z.string().nullable().optional(),
  reason: z.string().nullable().optional().describe('Why the job failed or expired'),
  downloaded: z.boolean().optional(),
  source: source.nullable().optional().describe('What ffprobe read of the upload'),
  upload_bytes: z.number().nullable().optional(),
  result_bytes: z.number().nullable().optional(),
  max_upload_bytes: z.number().optional(),
  message: z.string().optional(),
});

/** A job as the MCP tools answer it: the REST answer without `success` and what is read of the upload. */
export const videoJobToolAnswer = videoJobAnswer.omit({
  success: true,
  downloaded: true,
  source: true,
  upload_bytes: true,
  result_bytes: true,
  max_upload_bytes: true,
  message: true,
});
/** The start as remove_video_watermark answers it: the job, the largest upload, and what to do next. */
export const videoJobToolStart = videoJobToolAnswer.extend({ max_upload_bytes: z.number(), message: z.string() });

export const videoOperations = operations('Video', {
  start: post('/video/watermark-jobs', {
    summary: 'Start a job that removes regions (your logo, a timestamp) from your own video',
    body: videoJobBody,
    success: created(videoJobAnswer, 'The job and its one-time upload URL'),
    errors: [400, 422],
  }),
  status: get('/video/watermark-jobs/{job_id}', {
    summary: 'A video job: status, progress, the single-use download URL once done',
    success: ok(videoJobAnswer, 'The job'),
    errors: [404],
  }),
});
