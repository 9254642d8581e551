// What each kind of job tells about itself as an MCP task (api/services/tasks.ts): its status from its
// workflow (and, for a load test, from the test's own state), its result as the REST endpoint answers
// it, and how cancelling it cancels the job.
import {
  CancelledFailure,
  WorkflowFailedError,
  type Client,
  type WorkflowExecutionStatusName,
} from '@temporalio/client';
import { DOMAIN_CHECK_KIND } from '../../lib/jobs/domain-check.ts';
import { LOAD_TEST_KIND } from '../../lib/jobs/load-test.ts';
import { PAGE_AUDIT_KIND, SITE_DISCOVERY_KIND, type Outcome } from '../../lib/jobs/site.ts';
import { AppError } from '../../lib/errors.ts';
import { within } from '../../lib/temporal/jobs.ts';
import type { DomainService } from './domains.ts';
import type { LoadTestService } from './load-tests.ts';
import type { SiteService } from './site.ts';
import { videoNextStep, type VideoService } from './video.ts';
import { VIDEO_JOB_KIND } from '../../lib/jobs/video.ts';
import { WEBHOOK_WAIT_KIND } from '../../lib/jobs/webhooks.ts';
import type { WebhookWaitService } from './webhook-waits.ts';

/** How long a cancellation waits for the job's workflow to close. */
const CANCEL_WAIT_MS = 5000;
/** How long the result of a stopping load test waits for its end. */
const RESULT_WAIT_MS = 20_000;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task's state as its kind tells it (the rest of the task comes from the workflow's description). */
export interface TaskView {
  status: TaskStatus;
  statusMessage?: string;
  /** Percent done, when the job knows it. */
  progress?: number;
}

/** What one kind of job tells about itself as a task. */
export interface TaskKind {
  /** `execution`: the workflow's status in Temporal (RUNNING, COMPLETED, CANCELLED, FAILED, ...). */
  view(publicId: string, userId: number, execution: WorkflowExecutionStatusName): Promise<TaskView>;
  /** The result as the REST endpoint answers it (a job that failed answers with its reason). */
  result(publicId: string, userId: number): Promise<Record<string, unknown>>;
  cancel(publicId: string, userId: number): Promise<void>;
  /** Whether a job started by REST is a whole task too (a bulk check or site job started by REST keeps only part of its answer). */
  restStartedIsTask?: boolean;
}

/** A task's status from its workflow's, for jobs whose workflow's end is the job's end. */
function fromExecution(execution: WorkflowExecutionStatusName): TaskStatus {
  if (execution === 'RUNNING' || execution === 'CONTINUED_AS_NEW' || execution === 'PAUSED') return 'working';
  if (execution === 'COMPLETED') return 'completed';
  return execution === 'CANCELLED' ? 'cancelled' : 'failed';
}

/** What the tasks read and cancel jobs through. */
export interface TaskDeps {
  temporal: Client;
  loadTests: LoadTestService;
  domains: DomainService;
  site: SiteService;
  video: VideoService;
  webhookWaits: WebhookWaitService;
}

/** The kinds of job that are tasks, by job kind (the workflow id's prefix). */
export function taskKinds({
  temporal,
  loadTests,
  domains,
  site,
  video,
  webhookWaits,
}: TaskDeps): Record<string, TaskKind> {
  const workflowOf = (kind: string, publicId: string) => temporal.workflow.getHandle(`${kind}-${publicId}`);
  /** Cancels a job whose workflow's end is the job's end, and waits (briefly) for it to close. */
  const cancelWorkflow = async (kind: string, publicId: string) => {
    const handle = workflowOf(kind, publicId);
    await handle.cancel();
    // The answer to tasks/cancel shows the task's new status.
    await within(
      handle.result().catch(() => null),
      CANCEL_WAIT_MS,
    );
  };
  /** A site job: one activity; its failures are values (Outcome), so a completed workflow may be a failed task. */
  const siteKind = (kind: string): TaskKind => ({
    async view(id, _userId, execution) {
      const status = fromExecution(execution);
      if (status !== 'completed')
        return {
          status,
          statusMessage: status === 'working' ? 'fetching and reading the site' : execution.toLowerCase(),
        };
      const outcome = (await workflowOf(kind, id).result()) as Outcome<unknown>;
      return outcome.ok
        ? {
            status,
            statusMessage: outcome.storedAt !== undefined ? 'completed (from the cache)' : 'completed',
            progress: 100,
          }
        : { status: 'failed', statusMessage: `failed: ${outcome.message}` };
    },
    async result(id) {
      try {
        return { ...(await site.jobAnswer(`${kind}-${id}`)) };
      } catch (err) {
        if (err instanceof AppError) return { success: false, error: err.message };
        if (err instanceof WorkflowFailedError)
          return {
            success: false,
            error: err.cause instanceof CancelledFailure ? 'The job was cancelled.' : 'The job did not finish.',
          };
        throw err;
      }
    },
    cancel: (id) => cancelWorkflow(kind, id),
  });
  return {
    [LOAD_TEST_KIND]: {
      restStartedIsTask: true,
      async view(testId, userId) {
        const s = await loadTests.statusOf(testId, userId);
        const totals = s.metrics
          ? `, ${s.metrics.total_requests ?? 0} requests, ${s.metrics.failed_requests ?? 0} failed`
          : '';
        // A test asked to stop is a cancelled task from then on (its result waits for the shards' last totals).
        if (s.stop_requested || s.status === 'stopped')
          return {
            status: 'cancelled',
            statusMessage: `${s.status === 'stopped' ? 'stopped' : 'stopping'} at ${s.progress}%${totals}`,
            progress: s.progress,
          };
        switch (s.status) {
          case 'pending':
            return { status: 'working', statusMessage: 'pending: waiting for a load worker', progress: 0 };
          case 'running':
            return { status: 'working', statusMessage: `running: ${s.progress}%${totals}`, progress: s.progress };
          case 'completed':
            return { status: 'completed', statusMessage: `completed${totals}`, progress: 100 };
          default:
            return { status: 'failed', statusMessage: `failed: ${s.failure_reason ?? 'no reason recorded'}` };
        }
      },
      async result(testId, userId) {
        // A stopping test's results come when its shards have reported (a few seconds).
        const deadline = Date.now() + RESULT_WAIT_MS;
        for (;;) {
          const status = await loadTests.statusOf(testId, userId);
          if (!['pending', 'running'].includes(status.status)) return loadTests.results(testId, userId);
          // Still open past the wait (shards slow to report): what is known, never an error on an ended task.
          if (Date.now() > deadline)
            return {
              success: true,
              test_id: testId,
              status: 'stopping',
              results: null,
              partial_totals: status.metrics,
              message: 'the shards have not reported their last totals yet: load_test_results has them when they do',
            };
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      },
      async cancel(testId, userId) {
        const row = await loadTests.owned(testId, userId);
        // No load worker has it yet: cancelling the workflow ends it stopped, nothing sent.
        if (row.status === 'pending') return cancelWorkflow(LOAD_TEST_KIND, testId);
        await loadTests.stop(row);
      },
    },
    [DOMAIN_CHECK_KIND]: {
      async view(id, _userId, execution) {
        const status = fromExecution(execution);
        if (status !== 'working')
          return {
            status,
            statusMessage: execution.toLowerCase(),
            ...(status === 'completed' ? { progress: 100 } : {}),
          };
        const p = await domains.bulkProgress(`${DOMAIN_CHECK_KIND}-${id}`);
        return p
          ? {
              status,
              statusMessage: `checked ${p.done} of ${p.total} names`,
              progress: p.total ? Math.floor((p.done / p.total) * 100) : 0,
            }
          : { status, statusMessage: 'checking' };
      },
      async result(id) {
        try {
          return await domains.bulkResult(`${DOMAIN_CHECK_KIND}-${id}`);
        } catch (err) {
          // Its reason (a cancellation, an operator's terminate) is for the logs, not the caller.
          if (err instanceof WorkflowFailedError)
            return {
              success: false,
              error: err.cause instanceof CancelledFailure ? 'cancelled' : 'the check did not finish',
            };
          throw err;
        }
      },
      cancel: (id) => cancelWorkflow(DOMAIN_CHECK_KIND, id),
    },
    [SITE_DISCOVERY_KIND]: siteKind(SITE_DISCOVERY_KIND),
    // A wait for a capture: done when a capture came (or the time ran out); failed when its webhook went.
    [WEBHOOK_WAIT_KIND]: {
      async view(id, _userId, execution) {
        const status = fromExecution(execution);
        if (status === 'working') return { status, statusMessage: 'waiting for a matching capture' };
        if (status !== 'completed') return { status, statusMessage: execution.toLowerCase() };
        const o = await webhookWaits.outcome(id);
        if ('error' in o || o.gone) return { status: 'failed', statusMessage: 'failed: the webhook was deleted' };
        return {
          status,
          statusMessage: o.requestId === null ? 'timed out: no matching capture' : `captured request ${o.requestId}`,
          progress: 100,
        };
      },
      result: (id, userId) => webhookWaits.answer(id, userId),
      async cancel(id, userId) {
        await cancelWorkflow(WEBHOOK_WAIT_KIND, id);
        await webhookWaits.freeSlot(id, userId);
      },
    },
    [PAGE_AUDIT_KIND]: siteKind(PAGE_AUDIT_KIND),
    // A video job's task is done when its result is ready (the workflow then waits for the download):
    // while it awaits the upload it is working, and its message says where to upload.
    [VIDEO_JOB_KIND]: {
      restStartedIsTask: true,
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
      cancel: (jobId) => cancelWorkflow(VIDEO_JOB_KIND, jobId),
    },
  };
}
