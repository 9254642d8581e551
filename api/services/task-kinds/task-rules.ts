// What one kind of job tells about itself as an MCP task, and what the kinds' rules share. Each kind's
// rules are in a file of this folder named by its kind; api/services/task-kinds.ts lists them.
import {
  CancelledFailure,
  WorkflowFailedError,
  type Client,
  type WorkflowExecutionStatusName,
} from '@temporalio/client';
import { within } from '../../../lib/temporal/jobs.ts';
import type { DomainService } from '../domains.ts';
import type { LoadTestService } from '../load-tests/load-tests.ts';
import type { SiteService } from '../site.ts';
import type { VideoService } from '../video/video.ts';
import type { WebhookWaitService } from '../webhooks/webhook-waits.ts';

/** How long a cancellation waits for the job's workflow to close. */
const CANCEL_WAIT_MS = 5000;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task's state as its kind tells it (the rest of the task comes from the workflow's description). */
export interface TaskView {
  status: TaskStatus;
  statusMessage?: string;
  /** Percent done, when the job knows it. */
  progress?: number;
}

/** What one kind of job tells about itself as a task. */
export interface TaskRules {
  /** `execution`: the workflow's status in Temporal (RUNNING, COMPLETED, CANCELLED, FAILED, ...). */
  view(publicId: string, userId: number, execution: WorkflowExecutionStatusName): Promise<TaskView>;
  /** The result as the REST endpoint answers it (a job that failed answers with its reason). */
  result(publicId: string, userId: number): Promise<Record<string, unknown>>;
  cancel(publicId: string, userId: number): Promise<void>;
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

/** A task's status from its workflow's, for jobs whose workflow's end is the job's end. */
export function fromExecution(execution: WorkflowExecutionStatusName): TaskStatus {
  if (execution === 'RUNNING' || execution === 'CONTINUED_AS_NEW' || execution === 'PAUSED') return 'working';
  if (execution === 'COMPLETED') return 'completed';
  return execution === 'CANCELLED' ? 'cancelled' : 'failed';
}

/** The workflow of a job of `kind`. */
export const workflowOf = (temporal: Client, kind: string, publicId: string) =>
  temporal.workflow.getHandle(`${kind}-${publicId}`);

/** Cancels a job whose workflow's end is the job's end, and waits (briefly) for it to close. */
export async function cancelWorkflow(temporal: Client, kind: string, publicId: string): Promise<void> {
  const handle = workflowOf(temporal, kind, publicId);
  await handle.cancel();
  // The answer to tasks/cancel shows the task's new status.
  await within(
    handle.result().catch(() => null),
    CANCEL_WAIT_MS,
  );
}

/**
 * The answer of a job whose workflow failed (cancelled, or terminated by an operator): in the caller's
 * words, its reason being for the logs; undefined for any other error.
 */
export function failedJobAnswer(
  err: unknown,
  words: { cancelled: string; unfinished: string },
): { success: false; error: string } | undefined {
  if (!(err instanceof WorkflowFailedError)) return undefined;
  return { success: false, error: err.cause instanceof CancelledFailure ? words.cancelled : words.unfinished };
}
