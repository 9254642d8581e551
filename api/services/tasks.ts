// Jobs as MCP tasks. A task *is* a job's workflow: its id is the workflow id, its status comes from
// the workflow (and, for a load test, from the test's own state), its result is the job's result as
// the REST endpoint answers it, and cancelling it cancels the job. Nothing is kept in process memory,
// so any API process answers for any task, and a restart loses none. Owner checks on every call: a
// task of another user answers exactly as an unknown one (null). Each kind of job: api/services/task-kinds.ts.
import { WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import { PUBLIC_ID_PATTERN } from '../../lib/auth/tokens.ts';
import { KIND_ATTRIBUTE, OWNER_ATTRIBUTE } from '../../lib/temporal/search-attributes.ts';
import { TASK_JOB_KINDS, type TaskJobKind } from '../../lib/jobs/index.ts';
import { TASK_POLL_MS } from '../../lib/plans.ts';
import { taskKinds, type TaskDeps, type TaskStatus } from './task-kinds.ts';

/** How long a task can be read after it ends: Temporal's retention for the workflow (the dev server keeps a day). */
export const TASK_TTL_MS = 24 * 3600 * 1000;
/** How often a client should poll a task (lib/plans.ts: its polls at that pace spend no request). */
export { TASK_POLL_MS };
/** Tasks per page of `list`. */
export const TASK_PAGE_SIZE = 20;

export type { TaskStatus };

export interface JobTask {
  taskId: string;
  /** The job kind (`load-test`, ...): which tool's result it holds. */
  kind: TaskJobKind;
  /** The job's public id (`test_id`, ...). */
  publicId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** Percent done, when the job knows it. */
  progress?: number;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number;
  pollInterval: number;
}

const noop = () => {};

export function taskService(deps: TaskDeps) {
  const { temporal } = deps;
  const kinds = taskKinds(deps);

  /** The kind and public id of a task id (a workflow id `<kind>-<public id>`), or null. */
  function parse(taskId: string): { kind: TaskJobKind; publicId: string } | null {
    const kind = TASK_JOB_KINDS.find((k) => taskId.startsWith(`${k.kind}-`))?.kind;
    const publicId = kind ? taskId.slice(kind.length + 1) : '';
    return kind && PUBLIC_ID_PATTERN.test(publicId) ? { kind, publicId } : null;
  }

  /** The task when `userId` owns its workflow; null for unknown and foreign ids alike. */
  async function get(taskId: string, userId: number): Promise<JobTask | null> {
    const id = parse(taskId);
    if (!id) return null;
    let description: WorkflowExecutionDescription;
    try {
      description = await temporal.workflow.getHandle(taskId).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
    if (description.memo?.owner !== userId) return null;
    if (!kinds[id.kind].restStartedIsTask && description.memo?.task !== true) return null;
    const view = await kinds[id.kind].view(id.publicId, userId, description.status.name);
    return {
      taskId,
      ...id,
      ...view,
      createdAt: description.startTime.toISOString(),
      lastUpdatedAt: (description.closeTime ?? new Date()).toISOString(),
      ttl: TASK_TTL_MS,
      pollInterval: TASK_POLL_MS,
    };
  }

  return {
    get,
    /**
     * Resolves when the task's job has ended (its workflow closed, however it closed), when `signal`
     * aborts, or when Temporal cannot say: a plain call answers when its job ends instead of at its next poll.
     */
    async closed(taskId: string, signal: AbortSignal): Promise<void> {
      if (signal.aborted) return;
      // The long poll for the result ends with the signal (not left running until the job ends).
      await temporal.withAbortSignal(signal, () => temporal.workflow.getHandle(taskId).result()).then(noop, noop);
    },
    /** The job's result (REST's answer), or null when the task is unknown or not the caller's. */
    async result(taskId: string, userId: number): Promise<{ task: JobTask; value: Record<string, unknown> } | null> {
      const task = await get(taskId, userId);
      return task ? { task, value: await kinds[task.kind].result(task.publicId, userId) } : null;
    },
    /** Cancels the job (a load test stops, keeping its partial results); false when unknown or foreign. */
    async cancel(taskId: string, userId: number): Promise<boolean> {
      const task = await get(taskId, userId);
      if (!task) return false;
      await kinds[task.kind].cancel(task.publicId, userId);
      return true;
    },
    /** The caller's tasks, newest first, a page at a time (Temporal's visibility: needs the search attributes). */
    async list(userId: number, cursor?: string): Promise<{ tasks: JobTask[]; nextCursor?: string }> {
      const kindList = TASK_JOB_KINDS.map((k) => `'${k.kind}'`).join(', ');
      const page = await temporal.workflowService.listWorkflowExecutions({
        namespace: temporal.options.namespace,
        pageSize: TASK_PAGE_SIZE,
        nextPageToken: cursor ? Buffer.from(cursor, 'base64url') : undefined,
        query: `${OWNER_ATTRIBUTE.name} = ${Math.trunc(userId)} AND ${KIND_ATTRIBUTE.name} IN (${kindList})`,
      });
      // One job whose state cannot be read leaves the list, not the whole page.
      const tasks = (
        await Promise.all(
          (page.executions ?? []).map((e) => get(e.execution?.workflowId ?? '', userId).catch(() => null)),
        )
      ).filter((t): t is JobTask => t !== null);
      const next = page.nextPageToken?.length ? Buffer.from(page.nextPageToken).toString('base64url') : undefined;
      return { tasks, ...(next ? { nextCursor: next } : {}) };
    },
  };
}

export type TaskService = ReturnType<typeof taskService>;
