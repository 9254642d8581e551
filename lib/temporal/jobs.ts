// Jobs are workflows. The public id (`test_id`, `job_id`, ...) is the workflow id with a kind prefix,
// so an operator finds a job in Temporal UI by the id a user reports; the owner rides in the memo.
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';
import { UnavailableError } from '../errors.ts';
import type { JobWorkflows, JobWorkflowType } from '../jobs/index.ts';
import { TASK_QUEUES } from '../jobs/task-queues.ts';
import { newPublicId, PUBLIC_ID_PATTERN } from '../tokens.ts';
import { processMetrics } from '../metrics.ts';
import { currentRequestId } from '../request-context.ts';
import { jobSearchAttributes } from './search-attributes.ts';

export function workflowIdOf(kind: string, publicId: string): string {
  return `${kind}-${publicId}`;
}

export function newJobId(): string {
  return newPublicId(12);
}

/**
 * A job to start: a workflow of the shared definitions (lib/jobs/) by its type name, its arguments
 * checked against that workflow's parameters; the handle's result() has the workflow's result type.
 * Every job's workflow runs on the `workflows` task queue.
 *
 * By name, not by function: `workflow: loadTest` would make the API process load the workflow code at
 * run time, and a type-only `startJob<typeof loadTest>` with the name beside it checks the arguments
 * but not the name. lib/jobs/ holds both the name and the signature (the API imports no workflow
 * code, not even a type), and workers/pools/workflows.ts checks at compile time that the bundle
 * exports each workflow under that name with that signature.
 */
export interface JobStart<N extends JobWorkflowType> {
  kind: string;
  ownerId: number;
  workflow: N;
  args: Parameters<JobWorkflows[N]>;
  publicId?: string;
  /** More of the request, for whoever reads the job's result (kept in the memo, beside the owner). */
  memo?: Record<string, unknown>;
}

export async function startJob<N extends JobWorkflowType>(client: Client, o: JobStart<N>): Promise<{ publicId: string; handle: WorkflowHandle<JobWorkflows[N]> }> {
  const publicId = o.publicId ?? newJobId();
  const handle = await client.workflow.start(o.workflow, {
    workflowId: workflowIdOf(o.kind, publicId),
    taskQueue: TASK_QUEUES.workflows,
    args: o.args as unknown[],
    // The request id links the API's log line for this request to the workflow in Temporal UI.
    memo: { ...o.memo, owner: o.ownerId, kind: o.kind, ...(currentRequestId() ? { requestId: currentRequestId() } : {}) },
    typedSearchAttributes: jobSearchAttributes(o.kind, o.ownerId),
  });
  processMetrics().jobsStarted.inc({ kind: o.kind });
  return { publicId, handle: handle as WorkflowHandle<JobWorkflows[N]> };
}

/** The job's handle when `ownerId` owns it; null for unknown and foreign ids alike. */
export async function findOwnedJob(client: Client, kind: string, publicId: string, ownerId: number): Promise<WorkflowHandle | null> {
  if (!PUBLIC_ID_PATTERN.test(publicId)) return null;
  const handle = client.workflow.getHandle(workflowIdOf(kind, publicId));
  try {
    const description = await handle.describe();
    return description.memo?.owner === ownerId ? handle : null;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/**
 * The job's result when it ends within `ms`; null when it has not (the job goes on). A failed job
 * rejects, as `handle.result()` does.
 */
export function resultWithin<T>(handle: WorkflowHandle, ms: number): Promise<{ value: T } | null> {
  return within(handle.result() as Promise<T>, ms);
}

/** `promise`'s value when it settles within `ms` (a rejection rejects); null when it has not. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | null> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.then((value) => ({ value })), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The 503 of a job (`noun`: what the user calls it) whose state no workflows worker could tell. */
export function unreadableState(err: unknown, noun = 'job'): UnavailableError {
  return new UnavailableError(`The ${noun}'s state could not be read (no workflows worker answered): ${(err as Error).message}`);
}

/**
 * A job's state: the result of a workflow that completed (its history holds it, no worker needed),
 * else the answer of `query` (which needs a live worker on the workflows pool: 503 when none answers).
 */
export async function readJobState<S>(handle: WorkflowHandle, query: QueryDefinition<S, []>): Promise<S> {
  const { status } = await handle.describe();
  if (status.name === 'COMPLETED') return (await handle.result()) as S;
  try {
    return await handle.query(query);
  } catch (err) {
    throw unreadableState(err);
  }
}
