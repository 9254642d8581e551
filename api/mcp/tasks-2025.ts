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
  type Task,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AppError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import { TASK_POLL_MS, TASK_TTL_MS, type JobTask, type TaskService } from '../services/tasks.ts';
import { isTerminal, presentTask, untilEnded, type JobTools } from './job-tools.ts';

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
const taskParams = z.looseObject({ taskId: z.string() });

/** Adds the 2025-11-25 tasks to a server answering that revision (before it connects). */
export function serveLegacyTasks(
  server: McpServer,
  jobs: JobTools,
  tasks: TaskService,
  userId: number,
  logger: Logger,
): void {
  const low = server.server;
  low.registerCapabilities({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
  for (const tool of Object.values(jobs.tools)) tool.registered.execution = { taskSupport: 'optional' };

  // Our errors as they are; a backend's (Temporal, the database) logged and told without its details.
  const guarded = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      if (err instanceof AppError && err.isCallersFault)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
      logger.error({ err, what }, 'MCP task method failed');
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `The task could not be ${what} (a backend did not answer): try again`,
      );
    }
  };
  const owned = async (taskId: string) => {
    const task = await tasks.get(taskId, userId);
    if (!task) throw notFound(taskId);
    return task;
  };

  low.setRequestHandler('tasks/get', { params: taskParams }, ({ taskId }) =>
    guarded('read', async () => sdkTask(await owned(taskId))),
  );

  // As the revision says: the result once the task has ended (waiting for it), marked as the task's.
  low.setRequestHandler('tasks/result', { params: taskParams }, ({ taskId }, ctx: ServerContext) =>
    guarded('read', async () => {
      await owned(taskId);
      await untilEnded(tasks, taskId, userId, ctx.mcpReq.signal);
      const found = await tasks.result(taskId, userId);
      if (!found) throw notFound(taskId);
      const result = presentTask(jobs.presenters, found);
      return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
    }),
  );

  low.setRequestHandler('tasks/list', { params: z.looseObject({ cursor: z.string().optional() }) }, ({ cursor }) =>
    guarded('listed', async () => {
      const page = await tasks.list(userId, cursor);
      return { tasks: page.tasks.map(sdkTask), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    }),
  );

  low.setRequestHandler('tasks/cancel', { params: taskParams }, ({ taskId }) =>
    guarded('cancelled', async () => {
      const task = await owned(taskId);
      if (isTerminal(task.status))
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Cannot cancel task in terminal status: ${task.status}`,
        );
      if (!(await tasks.cancel(taskId, userId))) throw notFound(taskId);
      return sdkTask(await owned(taskId));
    }),
  );

  // A job tool's call as a task: answered at once with the job's task, working (not read back: no worker has seen it yet).
  low.setRequestHandler(
    TASK_CALL,
    { params: z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }) },
    async ({ name, arguments: args }) => {
      const tool = jobs.tools[name];
      if (!tool)
        throw new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `The tool ${name.slice(0, 100)} does not run as a task (its execution.taskSupport is forbidden): call it without "task"`,
        );
      const begun = await tool.begin(args ?? {});
      if ('refused' in begun) return begun.refused;
      const now = new Date().toISOString();
      const task: Task = {
        ...begun.started,
        status: 'working',
        createdAt: now,
        lastUpdatedAt: now,
        ttl: TASK_TTL_MS,
        pollInterval: TASK_POLL_MS,
      };
      return { task };
    },
  );
}
