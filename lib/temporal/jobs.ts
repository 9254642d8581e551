// Jobs are workflows. The public id (`test_id`, `job_id`, ...) is the workflow id with a kind prefix,
// so an operator finds a job in Temporal UI by the id a user reports; the owner rides in the memo.
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';
import { AppError } from '../errors.ts';
import { randomToken } from '../tokens.ts';
import { processMetrics } from '../metrics.ts';
import { currentRequestId } from '../request-context.ts';
import { jobSearchAttributes } from './search-attributes.ts';

export function workflowIdOf(kind: string, publicId: string): string {
  return `${kind}-${publicId}`;
}

export function newJobId(): string {
  return randomToken(12);
}

export interface StartJobOptions<A extends unknown[]> {
  kind: string;
  ownerId: number;
  workflowType: string;
  taskQueue: string;
  args: A;
  publicId?: string;
}

export async function startJob<A extends unknown[]>(client: Client, o: StartJobOptions<A>): Promise<{ publicId: string; handle: WorkflowHandle }> {
  const publicId = o.publicId ?? newJobId();
  const handle = await client.workflow.start(o.workflowType, {
    workflowId: workflowIdOf(o.kind, publicId),
    taskQueue: o.taskQueue,
    args: o.args,
    // The request id links the API's log line for this request to the workflow in Temporal UI.
    memo: { owner: o.ownerId, kind: o.kind, ...(currentRequestId() ? { requestId: currentRequestId() } : {}) },
    typedSearchAttributes: jobSearchAttributes(o.kind, o.ownerId),
  });
  processMetrics().jobsStarted.inc({ kind: o.kind });
  return { publicId, handle };
}

/** The job's handle when `ownerId` owns it; null for unknown and foreign ids alike. */
export async function findOwnedJob(client: Client, kind: string, publicId: string, ownerId: number): Promise<WorkflowHandle | null> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(publicId)) return null;
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
 * A job's state: the result of a workflow that completed (its history holds it, no worker needed),
 * else the answer of `query` (which needs a live worker on the workflows pool: 503 when none answers).
 */
export async function readJobState<S>(handle: WorkflowHandle, query: QueryDefinition<S, []>): Promise<S> {
  const { status } = await handle.describe();
  if (status.name === 'COMPLETED') return (await handle.result()) as S;
  try {
    return await handle.query(query);
  } catch (err) {
    throw new AppError(503, `The job's state could not be read (no workflows worker answered): ${(err as Error).message}`);
  }
}
