// A video job as a task: done when its result is ready (the workflow then waits for the download);
// while it awaits the upload it is working, and its message says where to upload.
import { AppError } from '../../../lib/errors.ts';
import { VIDEO_JOB_KIND } from '../../../lib/jobs/video.ts';
import { videoNextStep } from '../video/video.ts';
import { cancelWorkflow, type TaskDeps, type TaskRules } from './task-rules.ts';

export function videoJobTask({ temporal, video }: TaskDeps): TaskRules {
  return {
    async view(jobId, userId, execution) {
      if (execution === 'CANCELLED') return { status: 'cancelled', statusMessage: 'cancelled' };
      if (execution === 'TERMINATED' || execution === 'TIMED_OUT' || execution === 'FAILED')
        return { status: 'failed', statusMessage: execution.toLowerCase() };
      const job = await video.status(jobId, userId);
      const statusMessage = videoNextStep(job);
      if (job.status === 'done') return { status: 'completed', statusMessage, progress: 100 };
      if (job.status === 'failed' || job.status === 'expired')
        return { status: job.reason === 'cancelled' ? 'cancelled' : 'failed', statusMessage };
      return { status: 'working', statusMessage, progress: job.progress };
    },
    async result(jobId, userId) {
      try {
        return await video.status(jobId, userId);
      } catch (err) {
        // A cancelled job's state may no longer be readable: its end is the answer.
        if (err instanceof AppError && !err.isCallersFault)
          return { success: false, error: 'The job was cancelled or did not finish.' };
        throw err;
      }
    },
    cancel: (jobId) => cancelWorkflow(temporal, VIDEO_JOB_KIND, jobId),
  };
}
