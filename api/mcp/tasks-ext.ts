// The tasks extension (`io.modelcontextprotocol/tasks`) for 2026-07-28 clients: a request that declares
// it in its per-request client capabilities and calls a job tool is answered at once with the job's
// task (`resultType: "task"`); `tasks/get` reads it (its result inlined once done), `tasks/cancel`
// cancels its job, `tasks/update` is refused (no job of ours asks for input). A request that does not
// declare it gets the plain call (api/mcp/tools/job-tools.ts). No SDK serves the extension (docs/decisions.md):
// this follows its published schema (@modelcontextprotocol/ext-tasks' core/v2). As for 2025-11-25's
// tasks (api/mcp/tasks-2025.ts, whose job lookup and cancel this shares), a task is a job's workflow:
// its id is the workflow's, and nothing is kept here.
import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolRequest,
  type JSONRPCRequest,
  ProtocolError,
  ProtocolErrorCode,
  type Result,
  type ServerContext,
  type Task,
} from '@modelcontextprotocol/server';
import { sdkTask, startJobTask, taskAccess, taskParams, type ServeTasks } from './tasks-2025.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** Where `tasks/get` tells a job's percent done, when the job knows it (the extension's task has no such field). */
export const PROGRESS_META_KEY = 'netops/progress';

type ToolsCallHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** Whether the request declared the extension in its per-request client capabilities (`_meta`). */
function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, { extensions?: Record<string, unknown> }> | undefined;
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY]?.extensions?.[TASKS_EXTENSION];
  return typeof declared === 'object' && declared !== null && !Array.isArray(declared);
}

/** A task as the extension shows it: the 2025-11-25 one with its TTL and poll interval in `ttlMs`, `pollIntervalMs`. */
function extTask(task: Task) {
  const { ttl, pollInterval, ...rest } = task;
  return { ...rest, ttlMs: ttl ?? null, ...(pollInterval !== undefined ? { pollIntervalMs: pollInterval } : {}) };
}

/** Adds the tasks extension to a server answering 2026-07-28 (after its tools). */
export const serveTasksExtension: ServeTasks = (server, jobs, deps) => {
  const low = server.server;
  low.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  const { guarded, owned, cancel, result } = taskAccess(jobs.presenters, deps);

  // `tools/call` answers a task instead of waiting for the job's end: the SDK's handler (McpServer's,
  // which checks arguments and results) stays the plain call's. The SDK lets a handler's result carry
  // a `resultType` of its own on `tools/call`; it has no seam to wrap that handler, hence the lookup.
  const plain = (
    low as unknown as { _getRequestHandler(method: string): ToolsCallHandler | undefined }
  )._getRequestHandler('tools/call');
  if (!plain) throw new TypeError('serveTasksExtension: register the tools first');
  low.removeRequestHandler('tools/call');
  low.setRequestHandler('tools/call', async (request: CallToolRequest, ctx) => {
    const { name } = request.params;
    const tool = Object.hasOwn(jobs.tools, name) ? jobs.tools[name] : undefined;
    if (!tool || !declaresTasks(ctx)) return plain(request as unknown as JSONRPCRequest, ctx) as never;
    const started = await startJobTask(tool, request.params.arguments ?? {});
    if ('refused' in started) return started.refused;
    // Typed as a tool result by the SDK, which sends a handler's own resultType as it is.
    return { resultType: 'task', ...extTask(started.task) } as never;
  });

  // The task as it stands; once done, its result (as the plain call's), or a failed job's reason as the error.
  low.setRequestHandler('tasks/get', { params: taskParams }, ({ taskId }) =>
    guarded('read', async () => {
      const task = await owned(taskId);
      const view = {
        ...extTask(sdkTask(task)),
        ...(task.progress !== undefined ? { _meta: { [PROGRESS_META_KEY]: task.progress } } : {}),
      };
      if (task.status === 'completed')
        return { ...view, result: { ...(await result(taskId)), resultType: 'complete' } };
      if (task.status !== 'failed') return view;
      const failed = await result(taskId);
      return {
        ...view,
        error: {
          code: ProtocolErrorCode.InternalError,
          message: task.statusMessage ?? 'The job failed',
          data: { ...failed, resultType: 'complete' },
        },
      };
    }),
  );

  // The task's job cancelled (a load test stopped); refused once the task has ended.
  low.setRequestHandler('tasks/cancel', { params: taskParams }, ({ taskId }) =>
    guarded('cancelled', async () => {
      await cancel(taskId);
      return {};
    }),
  );

  // No job of ours asks for input (a video job's upload goes to its own URL): every update is refused.
  // (The SDK lifts the update's `inputResponses` out of its params, as a retried call's.)
  low.setRequestHandler('tasks/update', { params: taskParams }, ({ taskId }) =>
    guarded('updated', async () => {
      const task = await owned(taskId);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task ${taskId.slice(0, 100)} does not take input (it is ${task.status}, never input_required): ` +
          'read it with tasks/get, or end it with tasks/cancel',
      );
    }),
  );
};
