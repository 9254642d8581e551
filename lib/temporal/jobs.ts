// Jobs are workflows. The public id (`test_id`, `job_id`, ...) is the workflow id with a kind prefix,
// so an operator finds a job in Temporal UI by the id a user reports; the owner rides in the memo.
import {
  ServiceError,
  WorkflowNotFoundError,
  type Client,
  type ConnectionLike,
  type WorkflowExecutionStatusName,
  type WorkflowHandle,
} from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';
import { DependencyUnavailableError, UnavailableError } from '../errors.ts';
import type { JobWorkflows, JobWorkflowType } from '../jobs/index.ts';
import { TASK_QUEUES } from '../jobs/task-queues.ts';
import { newPublicId, PUBLIC_ID_PATTERN } from '../auth/tokens.ts';
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

export async function startJob<N extends JobWorkflowType>(
  client: Client,
  o: JobStart<N>,
): Promise<{ publicId: string; handle: WorkflowHandle<JobWorkflows[N]> }> {
  const publicId = o.publicId ?? newJobId();
  // Not bounded by a deadline: a start that timed out may still have reached the server and run
  // unseen. The SDK's own retries end it while the server is away (UNAVAILABLE: a 503 at the door).
  const handle = await client.workflow.start(o.workflow, {
    workflowId: workflowIdOf(o.kind, publicId),
    taskQueue: TASK_QUEUES.workflows,
    args: o.args as unknown[],
    // The request id links the API's log line for this request to the workflow in Temporal UI.
    memo: {
      ...o.memo,
      owner: o.ownerId,
      kind: o.kind,
      ...(currentRequestId() ? { requestId: currentRequestId() } : {}),
    },
    typedSearchAttributes: jobSearchAttributes(o.kind, o.ownerId),
  });
  processMetrics().jobsStarted.inc({ kind: o.kind });
  return { publicId, handle: handle as WorkflowHandle<JobWorkflows[N]> };
}

/** How long a read that needs the Temporal server waits for it: then 503, never a hang while it is away. */
export const TEMPORAL_READ_MS = 4_000;
/**
 * gRPC's UNAVAILABLE (the server is away) and DEADLINE_EXCEEDED (it, or a worker a query needs, did not answer in
 * time).
 */
const UNAVAILABLE = 14;
const NO_ANSWER_CODES = new Set([UNAVAILABLE, 4]);
/** The gRPC status of a Temporal client error: on the error, or on its cause (ServiceError). */
const grpcCode = (err: unknown): number | undefined =>
  (err as { code?: number }).code ?? (err as { cause?: { code?: number } }).cause?.code;

interface TemporalCaller {
  connection: ConnectionLike;
  withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R>;
}

/**
 * `read` (calls through `client`) within TEMPORAL_READ_MS. No answer in time is a 503: naming the
 * Temporal server when its health check fails too or the read asks no worker (`serverOnly`), else the
 * workflows worker a query waited for.
 */
export async function temporalRead<T>(
  client: TemporalCaller,
  read: () => Promise<T>,
  noun = 'job',
  { serverOnly = false }: { serverOnly?: boolean } = {},
): Promise<T> {
  // The SDK's own deadline is overshot by its retry backoff (a 4-s deadline failed after 5.1-5.7 s
  // with the server away, measured): our own timer bounds the wait.
  const pending = client.withDeadline(Date.now() + TEMPORAL_READ_MS, read);
  let answer: { value: T } | null;
  try {
    answer = await within(pending, TEMPORAL_READ_MS);
  } catch (err) {
    const code = grpcCode(err);
    if (code === undefined || !NO_ANSWER_CODES.has(code)) throw err;
    throw await noAnswer(client, err, noun, serverOnly || code === UNAVAILABLE);
  }
  if (answer) return answer.value;
  pending.catch(() => {}); // it fails later, unheard
  throw await noAnswer(client, new Error(`no answer within ${TEMPORAL_READ_MS} ms`), noun, serverOnly);
}

/** The server away (its own word, or no answer to a cheap call either), else the worker a query waited for. */
async function noAnswer(client: TemporalCaller, err: unknown, noun: string, serverAway: boolean): Promise<Error> {
  const probe = client.connection.withDeadline(Date.now() + 500, () =>
    client.connection.workflowService.getSystemInfo({}),
  );
  const serverUp =
    !serverAway &&
    (await within(probe, 500).then(
      (a) => a !== null,
      () => false,
    ));
  probe.catch(() => {});
  return serverUp ? unreadableState(err, noun) : new DependencyUnavailableError('temporal', err);
}

/**
 * A call to the Temporal server that failed because the server is away (gRPC UNAVAILABLE, what the
 * SDK ends its retries with: a job start, a signal while it restarts) as the 503 it is; null for
 * every other error (a query no worker answered in time is not the server's outage).
 */
export function temporalOutage(err: unknown): DependencyUnavailableError | null {
  if (!(err instanceof ServiceError)) return null;
  return grpcCode(err) === UNAVAILABLE ? new DependencyUnavailableError('temporal', err) : null;
}

/** The job's handle when `ownerId` owns it; null for unknown and foreign ids alike. */
export async function findOwnedJob(
  client: Client,
  kind: string,
  publicId: string,
  ownerId: number,
): Promise<WorkflowHandle | null> {
  if (!PUBLIC_ID_PATTERN.test(publicId)) return null;
  const handle = client.workflow.getHandle(workflowIdOf(kind, publicId));
  try {
    const description = await temporalRead(client, () => handle.describe());
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
  return new UnavailableError(
    `The ${noun}'s state could not be read (no workflows worker answered): ${(err as Error).message}`,
  );
}

/**
 * A job's state: the result of a workflow that completed (its history holds it, no worker needed),
 * else the answer of `query` (which needs a live worker on the workflows pool: 503 when none answers).
 */
export async function readJobState<S>(handle: WorkflowHandle, query: QueryDefinition<S, []>): Promise<S> {
  return temporalRead(handle.client, async () => {
    const outcome = await workflowOutcome<S>(handle);
    if ('result' in outcome) return outcome.result;
    try {
      return await handle.query(query);
    } catch (err) {
      if (err instanceof DependencyUnavailableError || NO_ANSWER_CODES.has(grpcCode(err) ?? -1)) throw err;
      throw unreadableState(err);
    }
  });
}

/** How a workflow closed without a result of its own (it failed, or was terminated, cancelled or timed out). */
const CLOSED_WITHOUT_RESULT = new Set<WorkflowExecutionStatusName>(['FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT']);

/**
 * Where a workflow stands, from the Temporal server alone (a closed workflow's result is in its
 * history): no worker is asked, so no worker's absence or load delays the answer. `closed` says how a
 * workflow ended without a result ('terminated', 'timed out', ...), at `closeTime`. (A workflow
 * continued as new is described by its latest run: open, or closed as that run closed.) A workflow the
 * server does not know throws WorkflowNotFoundError, as describe does.
 */
export async function workflowOutcome<R>(
  handle: WorkflowHandle,
): Promise<{ open: true } | { result: R } | { closed: string; closeTime: Date }> {
  const { status, closeTime } = await handle.describe();
  if (status.name === 'COMPLETED') return { result: (await handle.result()) as R };
  if (!CLOSED_WITHOUT_RESULT.has(status.name)) return { open: true };
  return { closed: status.name.toLowerCase().replace('_', ' '), closeTime: closeTime ?? new Date() };
}
