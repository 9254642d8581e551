// The tools whose work is a job (a Temporal workflow: load tests, bulk checks, site jobs, video jobs,
// waits for a capture). A call starts the job and answers when it ends, with progress meanwhile. A
// client may instead run the job as a task and poll it: a 2025-11-25 client by that revision's tasks
// (api/mcp/tasks-2025.ts), a 2026-07-28 one by the tasks extension (tasks-ext.ts), over the same jobs.
// Nothing here lives longer than its request: the job's state is its workflow's (api/services/tasks.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  CallToolResult,
  McpServer,
  RegisteredTool,
  ServerContext,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { TaskJobKind } from '../../../lib/jobs/index.ts';
import type { Logger } from '../../../lib/log.ts';
import type { Plan } from '../../../lib/plans.ts';
import type { QuotaService } from '../../services/quota.ts';
import { TASK_POLL_MS, type JobTask, type TaskService } from '../../services/tasks.ts';
import { validate } from '../../../contract/validate.ts';
import { errorResult, failure } from '../run.ts';

/** Turns a finished job's result (REST's answer) into the tool's result. */
export type TaskPresenter = (value: Record<string, unknown>, task: JobTask) => CallToolResult;

/** A job tool as the 2025-11-25 tasks start it (api/mcp/tasks-2025.ts). */
export interface JobTool {
  registered: RegisteredTool;
  /** Checks the arguments, spends the plan's quota and starts the job; or the error result to answer. */
  begin(args: unknown): Promise<{ started: { taskId: string; statusMessage: string } } | { refused: CallToolResult }>;
}

/**
 * One server's job tools by name, and how each kind of job's result is shown, by the task kinds of
 * lib/jobs/ (a server has the presenters of the tools it registers).
 */
export interface JobTools {
  tools: Record<string, JobTool>;
  presenters: Partial<Record<TaskJobKind, TaskPresenter>>;
}

export interface JobToolDeps {
  tasks: TaskService;
  quota: QuotaService;
  logger: Logger;
  jobs: JobTools;
}

export const isTerminal = (status: JobTask['status']) =>
  status === 'completed' || status === 'failed' || status === 'cancelled';

/** A finished job's result as its tool's: a failed job's as an error result. */
export function presentTask(
  presenters: Readonly<Record<string, TaskPresenter>>,
  found: { task: JobTask; value: Record<string, unknown> },
): CallToolResult {
  const result = presenters[found.task.kind]!(found.value, found.task);
  return found.task.status === 'failed' ? { ...result, isError: true } : result;
}

/**
 * The task once its job has ended (or the caller's, null, when unknown or foreign; or as it stands
 * when `signal` aborts): looked at every poll interval, and at once when its workflow closes. (A
 * task may end before its workflow does: a video job is done when its result is ready, while its
 * workflow waits for the download.)
 */
export async function untilEnded(
  tasks: TaskService,
  taskId: string,
  userId: number,
  signal: AbortSignal,
): Promise<JobTask | null> {
  const done = new AbortController();
  const stop = AbortSignal.any([signal, done.signal]);
  let closed: Promise<void> | undefined;
  let hasClosed = false;
  try {
    for (;;) {
      // Read before any wait: nobody waits on the workflow of a task that is not theirs.
      const task = await tasks.get(taskId, userId);
      if (!task || isTerminal(task.status) || signal.aborted) return task;
      closed ??= tasks.closed(taskId, stop).then(() => {
        hasClosed = true;
      });
      const pause = sleep(TASK_POLL_MS, undefined, { signal: stop }).catch(() => {});
      await (hasClosed ? pause : Promise.race([closed, pause]));
    }
  } finally {
    done.abort();
  }
}

/** How often a caller waiting on a plain call hears of its job (MCP clients give up after about 60 s of silence). */
export const PROGRESS_EVERY_MS = 5000;

/**
 * For a call that sent a progress token: `notifications/progress` every PROGRESS_EVERY_MS until the
 * job ends or the call is abandoned. Progress is the job's percent when it knows it, always
 * increasing (by a hundredth of what is left while the job's figure stands still).
 */
export function reportProgress(ctx: ServerContext, tasks: TaskService, taskId: string, userId: number): void {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return;
  const { signal } = ctx.mcpReq;
  let last = 0;
  const loop = async () => {
    for (;;) {
      await sleep(PROGRESS_EVERY_MS, undefined, { signal });
      const task = await tasks.get(taskId, userId);
      if (!task || isTerminal(task.status) || signal.aborted) return;
      // Below 100 until the job ends (a test at 100% may still be merging its shards), always rising.
      const figure = Math.min(task.progress ?? 0, 99);
      last = figure > last ? figure : last + (100 - last) / 100;
      await ctx.mcpReq.notify({
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
  // A failed read or send (or the call's end) ends the reports, never the call.
  void loop().catch(() => {});
}

/**
 * Registers a tool whose work is a job. `start` validates the arguments (as REST does), starts the
 * job and answers its workflow id (its task id); the job's result is shown by its kind's presenter.
 * A call waits for the job's end. A job that needs the caller between its start and its end (a video
 * job waits for the caller's upload) sets `plainCallAnswersAtOnce`: a call then answers the job as it
 * stands (with its upload link) instead of waiting for an end that cannot come without the caller. A
 * job worth nothing once its caller has gone (a wait for a capture) sets `cancelWhenAbandoned`: its
 * job is cancelled when the call is.
 */
export function registerJobTool(
  server: McpServer,
  name: string,
  config: {
    title: string;
    description: string;
    inputSchema: z.ZodObject;
    outputSchema: z.ZodObject;
    annotations: ToolAnnotations;
    _meta?: Record<string, unknown>;
  },
  deps: JobToolDeps,
  account: { userId: number; plan: Plan },
  start: (args: Record<string, unknown>) => Promise<string | { taskId: string; statusMessage: string }>,
  options: { plainCallAnswersAtOnce?: boolean; cancelWhenAbandoned?: boolean } = {},
): void {
  const { tasks, logger } = deps;
  const begin: JobTool['begin'] = async (args) => {
    try {
      // The SDK checked a plain call's arguments already; a task's come here unchecked.
      const checked = validate(config.inputSchema, args, 'arguments') as Record<string, unknown>;
      const verdict = await deps.quota.spend(account);
      if (!verdict.allowed) return { refused: failure(deps.quota.refusal(account.plan, verdict).message) };
      const started = await start(checked);
      return { started: typeof started === 'string' ? { taskId: started, statusMessage: 'started' } : started };
    } catch (err) {
      return { refused: errorResult(err, name, logger) };
    }
  };

  const registered = server.registerTool(name, config, async (args, ctx) => {
    const begun = await begin(args);
    if ('refused' in begun) return begun.refused;
    const { taskId } = begun.started;
    const { signal } = ctx.mcpReq;
    try {
      if (!options.plainCallAnswersAtOnce) {
        reportProgress(ctx, tasks, taskId, account.userId);
        await untilEnded(tasks, taskId, account.userId, signal);
        if (signal.aborted) {
          // The caller went away (nothing it is answered reaches it): a job that only it wanted ends with the call.
          if (options.cancelWhenAbandoned) await tasks.cancel(taskId, account.userId).catch(() => false);
          return failure('The call was abandoned');
        }
      }
      const found = await tasks.result(taskId, account.userId);
      if (!found) return failure(`The job ${taskId} is gone`);
      return presentTask(deps.jobs.presenters, found);
    } catch (err) {
      return errorResult(err, name, logger);
    }
  });
  deps.jobs.tools[name] = { registered, begin };
}
