// The kinds of job that are MCP tasks (api/services/tasks.ts), each with its rules: its status from its
// workflow (and, for a load test, from the test's own state), its result as the REST endpoint answers
// it, and how cancelling it cancels the job. Which kinds are tasks is their declarations' word
// (lib/jobs/, `task`); the rules of each are in task-kinds/<kind>.ts, listed here once.
import {
  DOMAIN_CHECK_KIND,
  LOAD_TEST_KIND,
  PAGE_AUDIT_KIND,
  SITE_DISCOVERY_KIND,
  TASK_JOB_KINDS,
  VIDEO_JOB_KIND,
  WEBHOOK_WAIT_KIND,
  type TaskJobKind,
} from '../../lib/jobs/index.ts';
import { domainCheckTask } from './task-kinds/domain-check.ts';
import { loadTestTask } from './task-kinds/load-test.ts';
import { siteTask } from './task-kinds/site.ts';
import type { TaskDeps, TaskRules } from './task-kinds/task-rules.ts';
import { videoJobTask } from './task-kinds/video-job.ts';
import { webhookWaitTask } from './task-kinds/webhook-wait.ts';

export type { TaskDeps, TaskRules, TaskStatus, TaskView } from './task-kinds/task-rules.ts';

/** The rules of every task kind (the compiler asks for one per kind whose declaration has `task`). */
export const TASK_RULES: Record<TaskJobKind, (deps: TaskDeps) => TaskRules> = {
  [LOAD_TEST_KIND]: loadTestTask,
  [DOMAIN_CHECK_KIND]: domainCheckTask,
  [SITE_DISCOVERY_KIND]: siteTask(SITE_DISCOVERY_KIND),
  [PAGE_AUDIT_KIND]: siteTask(PAGE_AUDIT_KIND),
  [WEBHOOK_WAIT_KIND]: webhookWaitTask,
  [VIDEO_JOB_KIND]: videoJobTask,
};

/** What one kind of job tells about itself as a task: its rules, and its declaration's `restStarted`. */
export interface TaskKind extends TaskRules {
  /** Whether a job started by REST is a whole task too (lib/jobs/job-kind.ts). */
  restStartedIsTask: boolean;
}

/** The kinds of job that are tasks, by job kind (the workflow id's prefix). */
export function taskKinds(deps: TaskDeps): Record<TaskJobKind, TaskKind> {
  return Object.fromEntries(
    TASK_JOB_KINDS.map((k) => [k.kind, { ...TASK_RULES[k.kind](deps), restStartedIsTask: k.task.restStarted }]),
  ) as Record<TaskJobKind, TaskKind>;
}
