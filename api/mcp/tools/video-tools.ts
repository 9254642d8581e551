// MCP tools of the video jobs: start one (a task when the client asks for one: working while it awaits
// the upload, its message giving the one-time upload link; completed when the result is ready, with
// its single-use download link), and poll it. The upload and the download are plain HTTP on those links.
import type { McpServer } from '@modelcontextprotocol/server';
import { VIDEO_JOB_KIND } from '../../../lib/jobs/video.ts';
import type { Plan } from '../../../lib/plans.ts';
import { workflowIdOf } from '../../../lib/temporal/jobs.ts';
import {
  jobIdParams,
  MAX_REGIONS,
  videoJobBody,
  videoJobToolAnswer,
  videoJobToolFields,
  videoJobToolStart,
} from '../../../contract/video.ts';
import { videoNextStep, type VideoJobAnswer, type VideoService } from '../../services/video/video.ts';
import { toolInput, toolOutput, validate } from '../../../contract/validate.ts';
import { failure, TOOL_HINTS, toolResult, type Run } from '../run.ts';
import { registerJobTool, type JobToolDeps, type TaskPresenter } from './job-tools.ts';

/** A job as the tools answer it: the REST status without its internals. */
function withoutInternals({
  success: _s,
  source: _src,
  upload_bytes: _u,
  result_bytes: _r,
  downloaded: _d,
  ...job
}: VideoJobAnswer) {
  return job;
}

export function registerVideoTools(
  server: McpServer,
  run: Run,
  deps: JobToolDeps,
  video: VideoService,
  account: { userId: number; plan: Plan },
): Record<string, TaskPresenter> {
  const { userId } = account;
  /** A job as the tools answer it, and what to do next. */
  const present: TaskPresenter = (value) => {
    if (value.success === false) return failure(String(value.error));
    const job = withoutInternals(value as VideoJobAnswer);
    const next = videoNextStep(job);
    return toolResult(
      {
        ...job,
        max_upload_bytes: video.maxUploadBytes,
        message:
          job.status === 'awaiting_upload'
            ? `${next} At most ${video.maxUploadBytes} bytes and 2 hours; then poll watermark_status (or the task).`
            : next,
      },
      next,
    );
  };

  registerJobTool(
    server,
    'remove_video_watermark',
    {
      title: 'Remove marks from your own video',
      description:
        'Starts a job that removes marks you name from your own footage (your logo or channel bug, ' +
        `a burnt-in timestamp, a screen recorder's badge): service "region" with up to ` +
        `${MAX_REGIONS} rectangles in pixels of the frame, each optionally between two times. ` +
        'Returns job_id and a one-time upload_url: POST the MP4/MOV there as multipart/form-data ' +
        `in the field "video" (at most ${video.maxUploadBytes} bytes and 2 hours), then poll ` +
        'watermark_status. As a task (tools/call with "task"), the task works while the job awaits ' +
        'the upload (its statusMessage gives the upload link) and completes when the result is ' +
        'ready (tasks/result gives the single-use download_url). The marks AI video generators put ' +
        "on their output to disclose it is generated are never removed (a generator's name as " +
        'service is refused), and a file carrying a C2PA provenance manifest is refused.',
      inputSchema: toolInput(videoJobToolFields),
      outputSchema: toolOutput(videoJobToolStart),
      annotations: { title: 'Remove marks from your own video', ...TOOL_HINTS.remove_video_watermark },
    },
    deps,
    account,
    async (args) => {
      const job = await video.start(validate(videoJobBody, args, 'arguments'), account);
      return {
        taskId: workflowIdOf(VIDEO_JOB_KIND, job.job_id),
        statusMessage: videoNextStep({
          ...job,
          progress: 0,
          reason: null,
          download_url: null,
          download_expires_at: null,
        }),
      };
    },
    { plainCallAnswersAtOnce: true },
  );

  server.registerTool(
    'watermark_status',
    {
      title: 'Status of a video job',
      description:
        'The status of one of your video jobs: awaiting_upload, queued, processing (with ' +
        'progress in percent), done (with a single-use download_url), failed (with the reason) ' +
        'or expired. Poll every few seconds while it is queued or processing.',
      inputSchema: toolInput(jobIdParams.shape),
      outputSchema: toolOutput(videoJobToolAnswer),
      annotations: { title: 'Status of a video job', ...TOOL_HINTS.watermark_status },
    },
    (args) =>
      run(
        'watermark_status',
        async () => withoutInternals(await video.status(String(args.job_id ?? ''), userId)),
        videoNextStep,
      ),
  );
  return { [VIDEO_JOB_KIND]: present };
}
