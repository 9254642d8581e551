// The MCP task store of the 2025-11-25 revision (the SDK's experimental TaskStore), over Temporal: a
// task is a job's workflow (api/services/tasks.ts), read, listed and cancelled as the signed-in user.
// One store per request, like the server: it holds the user, never task state.
import type {
  CreateTaskRequestHandlerExtra,
  TaskRequestHandlerExtra,
  TaskStore,
} from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ZodRawShape, z } from 'zod';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../lib/log.ts';
import type { Plan } from '../../lib/plans.ts';
import type { QuotaService } from '../services/quota.ts';
import { AppError } from '../../lib/errors.ts';
import { TASK_POLL_MS, TASK_TTL_MS, type JobTask, type TaskService } from '../services/tasks.ts';
import { errorResult } from './run.ts';

/** Turns a finished job's result (REST's answer) into the tool's result. */
export type TaskPresenter = (value: Record<string, unknown>, task: JobTask) => CallToolResult;

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

const notFound = (taskId: string) => new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId.slice(0, 100)}`);

/**
 * `gone` aborts when the HTTP request that carries this server ends: the SDK's wait of a plain call
 * (it polls getTask until the task ends) stops then, instead of polling for the rest of a long job.
 */
export function jobTaskStore(
  tasks: TaskService,
  userId: number,
  presenters: Readonly<Record<string, TaskPresenter>>,
  logger: Logger,
  gone?: AbortSignal,
): TaskStore {
  // Our errors as they are; a backend's (Temporal, the database) logged and told without its details.
  const guarded = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    if (gone?.aborted) throw new McpError(ErrorCode.ConnectionClosed, 'The request was closed');
    try {
      return await work();
    } catch (err) {
      if (err instanceof McpError) throw err;
      if (err instanceof AppError && err.isCallersFault) throw new McpError(ErrorCode.InvalidParams, err.message);
      logger.error({ err, what }, 'MCP task method failed');
      throw new McpError(
        ErrorCode.InternalError,
        `The task could not be ${what} (a backend did not answer): try again`,
      );
    }
  };
  return {
    async createTask() {
      // Tasks are jobs: the job tools start them and answer with their workflow's task.
      throw new McpError(ErrorCode.InvalidRequest, 'Tasks are created by the job tools (tools/call with a task)');
    },
    getTask: (taskId) =>
      guarded('read', async () => {
        const task = await tasks.get(taskId, userId);
        return task ? sdkTask(task) : null;
      }),
    async storeTaskResult() {
      throw new McpError(ErrorCode.InvalidRequest, "A task's result is its job's result");
    },
    getTaskResult: (taskId) =>
      guarded('read', async () => {
        const found = await tasks.result(taskId, userId);
        if (!found) throw notFound(taskId);
        const result = presenters[found.task.kind]!(found.value, found.task);
        return found.task.status === 'failed' ? { ...result, isError: true } : result;
      }),
    updateTaskStatus: (taskId, status) =>
      guarded('cancelled', async () => {
        if (status !== 'cancelled')
          throw new McpError(
            ErrorCode.InvalidRequest,
            `A task's status follows its job: only cancellation can be asked for, not ${status}`,
          );
        if (!(await tasks.cancel(taskId, userId))) throw notFound(taskId);
      }),
    listTasks: (cursor) =>
      guarded('listed', async () => {
        const page = await tasks.list(userId, cursor);
        return { tasks: page.tasks.map(sdkTask), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
      }),
  };
}

const isTerminal = (status: Task['status']) => status === 'completed' || status === 'failed' || status === 'cancelled';

/** How often a caller waiting on a plain call hears of its job (MCP clients give up after about 60 s of silence). */
export const PROGRESS_EVERY_MS = 5000;

/**
 * For a plain (not task-augmented) call that sent a progress token: `notifications/progress` every
 * PROGRESS_EVERY_MS until the job ends or the call is abandoned. Progress is the job's percent when
 * it knows it, always increasing (by a hundredth of what is left while the job's figure stands still).
 */
export function reportProgress(
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  tasks: TaskService,
  taskId: string,
  userId: number,
): void {
  const token = extra._meta?.progressToken;
  if (token === undefined) return;
  let last = 0;
  const loop = async () => {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, PROGRESS_EVERY_MS));
      if (extra.signal.aborted) return;
      const task = await tasks.get(taskId, userId);
      if (!task || isTerminal(task.status)) return;
      // Below 100 until the job ends (a test at 100% may still be merging its shards), always rising.
      const figure = Math.min(task.progress ?? 0, 99);
      last = figure > last ? figure : last + (100 - last) / 100;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: last,
          total: 100,
          ...(task.statusMessage ? { message: task.statusMessage } : {}),
        },
      });
    }
  };
  // A failed read or send ends the reports, never the call.
  void loop().catch(() => {});
}

export interface JobToolDeps {
  tasks: TaskService;
  quota: QuotaService;
  logger: Logger;
  /** Whether the JSON-RPC request `id` asked for a task (its progress then goes nowhere: no stream stays open). */
  isTaskRequest: (id: string | number) => boolean;
}

/**
 * A tool whose work is a job (taskSupport "optional"): with `task` in the call it answers the job's
 * task at once; without, it answers when the job's workflow closes (the SDK then reads the result:
 * tasks/result), sending progress meanwhile when the call carries a progress token. `start` validates the arguments,
 * starts the job and answers its workflow id; the job's result is shown by the kind's presenter in
 * the task store. A job that needs the caller between its start and its end (a video job waits for
 * the caller's upload) sets `plainCallAnswersAtOnce`: a plain call then answers the job as it stands
 * (with its upload link) instead of waiting for an end that cannot come without the caller. A job
 * worth nothing once its caller has gone (a wait for a capture) sets `cancelWhenAbandoned`: a plain
 * call's job is cancelled when the call is.
 */
export function registerJobTool(
  server: McpServer,
  name: string,
  config: {
    title: string;
    description: string;
    inputSchema: ZodRawShape | z.ZodObject;
    outputSchema: z.ZodObject;
    annotations: ToolAnnotations;
  },
  deps: JobToolDeps,
  account: { userId: number; plan: Plan },
  start: (args: Record<string, unknown>) => Promise<string | { taskId: string; statusMessage: string }>,
  options: { plainCallAnswersAtOnce?: boolean; cancelWhenAbandoned?: boolean } = {},
): void {
  const { tasks } = deps;
  server.experimental.tasks.registerToolTask(
    name,
    { ...config, execution: { taskSupport: 'optional' } },
    {
      async createTask(args: unknown, extra: CreateTaskRequestHandlerExtra) {
        const verdict = await deps.quota.spend(account);
        if (!verdict.allowed)
          throw new Error(`Rate limit of the ${account.plan} plan reached: retry in ${verdict.retryAfterSeconds} s.`);
        try {
          const started = await start(args as Record<string, unknown>);
          const { taskId, statusMessage } =
            typeof started === 'string' ? { taskId: started, statusMessage: 'started' } : started;
          // A job just started is working: answered at once, without reading it back (no worker has seen it yet).
          const now = new Date().toISOString();
          const task = {
            taskId,
            status: 'working' as Task['status'],
            statusMessage,
            createdAt: now,
            lastUpdatedAt: now,
            ttl: TASK_TTL_MS,
            pollInterval: TASK_POLL_MS,
          };
          if (!deps.isTaskRequest(extra.requestId)) {
            // The SDK waits for a plain call's task to end, then reads its result through the store: a
            // job that waits for the caller is read at once (this task never leaves the process).
            if (options.plainCallAnswersAtOnce) return { task: { ...task, status: 'completed' as const } };
            reportProgress(extra, tasks, taskId, account.userId);
            // It polls every pollInterval: waiting here for the job's workflow to close answers the call
            // as soon as the job ends (a job not ended by then, or a read that fails, is polled as before).
            await tasks.closed(taskId, extra.signal);
            if (extra.signal.aborted) {
              // The caller went away: a job that only it wanted (a wait) ends with the call.
              if (options.cancelWhenAbandoned) await tasks.cancel(taskId, account.userId).catch(() => false);
              return { task };
            }
            const ended = await tasks.get(taskId, account.userId).catch(() => null);
            if (ended && ended.status !== 'working') return { task: sdkTask(ended) };
          }
          return { task };
        } catch (err) {
          // The SDK answers a thrown error's message as the tool's error result: ours only, never internals.
          const text = errorResult(err, name, deps.logger).content[0];
          throw new Error(text?.type === 'text' ? text.text : `The ${name} tool failed`);
        }
      },
      // The SDK reads tasks through the store (jobTaskStore); these answer the same by asking it.
      getTask: (_args: unknown, extra: TaskRequestHandlerExtra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: async (_args: unknown, extra: TaskRequestHandlerExtra) =>
        (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
    },
  );
}
