// MCP tools of the video jobs: start one (its one-time upload link comes back), and poll it (its
// single-use download link once done). The upload and the download are plain HTTP on those links.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { VIDEO_SERVICES } from '../../lib/jobs/video.ts';
import { MAX_REGIONS, videoJobAnswer, videoJobBody } from '../schemas/video.ts';
import type { VideoService } from '../services/video.ts';
import { validate } from '../validate.ts';
import { TOOL_HINTS, type Run } from './run.ts';

const regionShape = z.object({
  x: z.number().int().describe('Left edge, pixels from the left of the source frame'),
  y: z.number().int().describe('Top edge, pixels from the top'),
  width: z.number().int(),
  height: z.number().int(),
  start_seconds: z.number().optional().describe('Only from this time of the video on'),
  end_seconds: z.number().optional().describe('Only until this time'),
});

/** A job as the tools answer it: the REST answer's fields, without `success`. */
const { success: _success, downloaded: _d, source: _s, upload_bytes: _u, result_bytes: _r, max_upload_bytes: _m, message: _msg, ...jobShape } = videoJobAnswer.shape;

export function registerVideoTools(server: McpServer, run: Run, video: VideoService, userId: number): void {
  server.registerTool(
    'remove_video_watermark',
    {
      title: 'Remove marks from your own video',
      description: `Starts a job that removes marks you name from your own footage (your logo or channel bug, a burnt-in timestamp, a screen recorder's badge): service "region" with up to ${MAX_REGIONS} rectangles in pixels of the frame, each optionally between two times. Returns job_id and a one-time upload_url: POST the MP4/MOV there as multipart/form-data in the field "video" (at most ${video.maxUploadBytes} bytes and 2 hours), then poll watermark_status. The marks AI video generators put on their output to disclose it is generated are never removed (a generator's name as service is refused), and a file carrying a C2PA provenance manifest is refused.`,
      inputSchema: {
        service: z.string().describe(`The removal profile: ${VIDEO_SERVICES.join(', ')}`),
        regions: z.array(regionShape).describe(`1 to ${MAX_REGIONS} rectangles to remove, in pixels of the source frame`),
      },
      outputSchema: { ...jobShape, max_upload_bytes: z.number(), message: z.string() },
      annotations: { title: 'Remove marks from your own video', ...TOOL_HINTS.remove_video_watermark },
    },
    (args) =>
      run(
        'remove_video_watermark',
        async () => {
          const { success: _s, ...out } = await video.start(validate(videoJobBody, args, 'body'), userId);
          return out;
        },
        (o) => `Video job ${o.job_id} is awaiting its upload: POST the file to ${o.upload_url} as multipart/form-data (field "video") before ${o.upload_expires_at}, then call watermark_status with job_id ${o.job_id}.`,
      ),
  );

  server.registerTool(
    'watermark_status',
    {
      title: 'Status of a video job',
      description: 'The status of one of your video jobs: awaiting_upload, queued, processing (with progress in percent), done (with a single-use download_url), failed (with the reason) or expired. Poll every few seconds while it is queued or processing.',
      inputSchema: { job_id: z.string().describe('The job_id remove_video_watermark returned') },
      outputSchema: jobShape,
      annotations: { title: 'Status of a video job', ...TOOL_HINTS.watermark_status },
    },
    (args) =>
      run(
        'watermark_status',
        async () => {
          const { success: _s, source: _src, upload_bytes: _u, result_bytes: _r, downloaded: _d, ...out } = await video.status(String(args.job_id ?? ''), userId);
          return out;
        },
        (o) =>
          o.status === 'done'
            ? o.download_url
              ? `Job ${o.job_id} is done: download the result once from ${o.download_url} (before ${o.download_expires_at}).`
              : `Job ${o.job_id} is done and its result was downloaded.`
            : `Job ${o.job_id} is ${o.status}${o.status === 'processing' ? ` (${o.progress}%)` : ''}${o.reason ? `: ${o.reason}` : ''}.`,
      ),
  );
}
