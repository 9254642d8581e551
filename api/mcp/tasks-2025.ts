// The tasks of the 2025-11-25 revision, for its clients: the job tools run as tasks (`tools/call` with
// `task` answers the task at once), and `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`.
// The v2 SDK keeps these methods' wire types but no runtime (docs/decisions.md), so they are ours,
// registered on its server as methods with schemas of our own. A task is a job's workflow
// (api/services/tasks.ts), read, listed and cancelled as the signed-in user; nothing is kept here.
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type ServerContext,
  type CallToolResult,
  type Task,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AppError, RateLimitedError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import { TASK_POLL_MS, TASK_TTL_MS, type JobTask, type TaskService } from '../services/tasks.ts';
import { isTerminal, presentTask, untilEnded, type JobTool, type JobTools } from './tools/job-tools.ts';
import { rateLimited } from './resources.ts';

/**
 * What a task-augmented `tools/call` is renamed to on its way in (asTaskCalls): the SDK's own
 * `tools/call` answers only tool results, never the task a 2025-11-25 client asked for.
 */
const TASK_CALL = 'netops/tools/call-as-task';

type Message = { method?: unknown; params?: { task?: unknown } };

/** The body with its task-augmented `tools/call` requests renamed for serveLegacyTasks' handler. */
export function asTaskCalls(body: unknown): unknown {
  const rename = (m: Message) =>
    m?.method === 'tools/call' && m.params?.task !== undefined ? { ...m, method: TASK_CALL } : m;
  return Array.isArray(body) ? body.map(rename) : rename(body as Message);
}

export function sdkTask(t: JobTask): Task {
  return {
    taskId: t.taskId,
    status: t.status,
    ...(t.statusMessage ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttl: t.ttl,
    pollInterval: t.pollInterval,
  };
}

const notFound = (taskId: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId.slice(0, 100)}`);
export const taskParams = z.looseObject({ taskId: z.string() });

/** What the task methods cost the signed-in user's plan (api/mcp/tools.ts builds them from the services). */
export interface TaskBounds {
  /** Counts one task method call: free within the plan's task reads a minute, else a request (429 when spent). */
  spend(): Promise<void>;
  /**
   * Runs a tasks/result call's wait for its task's end holding one of the user's task-wait slots (429: none
   * free); `lost` aborts when the slot was lost meanwhile.
   */
  holdWait<T>(work: (lost: AbortSignal) => Promise<T>): Promise<T>;
}

/** Who the task methods serve, and what they cost. */
export interface TaskMethodDeps {
  tasks: TaskService;
  userId: number;
  logger: Logger;
  bounds: TaskBounds;
}

/**
 * What the task methods of both revisions (here, and the extension's in api/mcp/tasks-ext.ts) do with
 * a job's task as the signed-in user, their failures as the protocol's errors; each call counts
 * against the plan (TaskBounds).
 */
export function taskAccess(presenters: JobTools['presenters'], { tasks, userId, logger, bounds }: TaskMethodDeps) {
  // Our errors as they are; a backend's (Temporal, the database) logged and told without its details.
  const guarded = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      await bounds.spend();
      return await work();
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      if (err instanceof RateLimitedError) throw rateLimited(err);
      if (err instanceof AppError && err.isCallersFault)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
      logger.error({ err, what }, 'MCP task method failed');
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `The task could not be ${what} (a backend did not answer): try again`,
      );
    }
  };
  /** The task, if it is the user's; else the revision's "not found". */
  const owned = async (taskId: string) => {
    const task = await tasks.get(taskId, userId);
    if (!task) throw notFound(taskId);
    return task;
  };
  /** Cancels the job of a task that has not ended (one that has is refused), and answers the task as it now stands. */
  const cancel = async (taskId: string) => {
    const task = await owned(taskId);
    if (isTerminal(task.status))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${task.status}`);
    if (!(await tasks.cancel(taskId, userId))) throw notFound(taskId);
    return owned(taskId);
  };
  /** The task's result as its tool's (a failed job's as an error result), or "not found". */
  const result = async (taskId: string) => {
    const found = await tasks.result(taskId, userId);
    if (!found) throw notFound(taskId);
    return presentTask(presenters, found);
  };
  /** Waits for the task's end (the caller gone, or the task not the user's: at once) holding a task-wait slot. */
  const ended = async (taskId: string, signal: AbortSignal) => {
    if (!isTerminal((await owned(taskId)).status))
      await bounds.holdWait(async (lost) => {
        const task = await untilEnded(tasks, taskId, userId, AbortSignal.any([signal, lost]));
        if (lost.aborted && !signal.aborted && !(task && isTerminal(task.status)))
          throw new RateLimitedError('This wait lost its task-wait slot: call tasks/result again', 1);
      });
  };
  return { guarded, owned, cancel, result, ended };
}

/**
 * Starts a job tool's job as a task: its task, working (not read back: no worker has seen it yet), or
 * the error result that refused it (arguments, the plan's quota).
 */
export async function startJobTask(
  tool: JobTool,
  args: Record<string, unknown>,
): Promise<{ task: Task } | { refused: CallToolResult }> {
  const begun = await tool.begin(args);
  if ('refused' in begun) return begun;
  const now = new Date().toISOString();
  return {
    task: {
      ...begun.started,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttl: TASK_TTL_MS,
      pollInterval: TASK_POLL_MS,
    },
  };
}

/**
 * How either revision's tasks are added to a server (this one's, or the extension's in api/mcp/tasks-ext.ts):
 * the job tools as the signed-in user sees them, before the server connects.
 */
export type ServeTasks = (server: McpServer, jobs: JobTools, deps: TaskMethodDeps) => void;

/** Adds the 2025-11-25 tasks to a server answering that revision. */
export const serveLegacyTasks: ServeTasks = (server, jobs, deps) => {
  const low = server.server;
  low.registerCapabilities({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
  for (const tool of Object.values(jobs.tools)) tool.registered.execution = { taskSupport: 'optional' };
  const { guarded, owned, cancel, result, ended } = taskAccess(jobs.presenters, deps);

  low.setRequestHandler('tasks/get', { params: taskParams }, ({ taskId }) =>
    guarded('read', async () => sdkTask(await owned(taskId))),
  );

  // As the revision says: the result once the task has ended (waiting for it), marked as the task's.
  low.setRequestHandler('tasks/result', { params: taskParams }, ({ taskId }, ctx: ServerContext) =>
    guarded('read', async () => {
      await ended(taskId, ctx.mcpReq.signal);
      const answer = await result(taskId);
      return { ...answer, _meta: { ...answer._meta, [RELATED_TASK_META_KEY]: { taskId } } };
    }),
  );

  low.setRequestHandler('tasks/list', { params: z.looseObject({ cursor: z.string().optional() }) }, ({ cursor }) =>
    guarded('listed', async () => {
      const page = await deps.tasks.list(deps.userId, cursor);
      return { tasks: page.tasks.map(sdkTask), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    }),
  );

  low.setRequestHandler('tasks/cancel', { params: taskParams }, ({ taskId }) =>
    guarded('cancelled', async () => sdkTask(await cancel(taskId))),
  );

  // A job tool's call as a task: answered at once with the job's task.
  low.setRequestHandler(
    TASK_CALL,
    { params: z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }) },
    async ({ name, arguments: args }) => {
      const tool = Object.hasOwn(jobs.tools, name) ? jobs.tools[name] : undefined;
      if (!tool)
        throw new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `The tool ${name.slice(0, 100)} does not run as a task (its execution.taskSupport is forbidden): ` +
            'call it without "task"',
        );
      const started = await startJobTask(tool, args ?? {});
      return 'refused' in started ? started.refused : started;
    },
  );
};
