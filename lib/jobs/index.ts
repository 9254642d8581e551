// The shared definitions of the jobs: what the API, the workflows, the workers and the activities
// agree on. Task queues, the job kinds' declarations (JOB_KINDS: each workflow's type name), each
// workflow's input and output, and the queries and signals the API sends. Nothing here runs a
// workflow: the API process imports this without the workflow code, and activities import it without
// an upward arrow (lib/ is below activities/ and workflows/). These files go into the workflow bundle:
// they import @temporalio/workflow's define* helpers, each other, and lib/ types only (`import type`:
// nothing of lib/ runs in the workflow sandbox; the declarations are plain data).
import { DOMAIN_CHECK_JOB } from './domain-check.ts';
import { LOAD_TEST_JOB } from './load-test.ts';
import { PIPELINE_CHECK_JOB } from './pipeline-check.ts';
import { PAGE_AUDIT_JOB, SITE_DISCOVERY_JOB } from './site.ts';
import { VIDEO_JOB } from './video.ts';
import { WEBHOOK_FORWARDER_JOB, WEBHOOK_UPKEEP_JOB, WEBHOOK_WAIT_JOB } from './webhooks.ts';

export * from './task-queues.ts';
export * from './pipeline-check.ts';
export * from './domain-check.ts';
export * from './load-test.ts';
export * from './load-outputs.ts';
export * from './site.ts';
export * from './video.ts';
export * from './webhooks.ts';
export * from './job-kind.ts';

/**
 * Every job kind, each declared in its own file (lib/jobs/job-kind.ts says what a declaration holds):
 * a new kind is a declaration there and a line here. What follows is derived from this list, and
 * test/unit/api/services/task-kinds.test.ts checks the rest agrees (the bundle's exports, the task
 * rules, a recorded history per workflow).
 */
export const JOB_KINDS = [
  LOAD_TEST_JOB,
  DOMAIN_CHECK_JOB,
  SITE_DISCOVERY_JOB,
  PAGE_AUDIT_JOB,
  PIPELINE_CHECK_JOB,
  VIDEO_JOB,
  WEBHOOK_FORWARDER_JOB,
  WEBHOOK_UPKEEP_JOB,
  WEBHOOK_WAIT_JOB,
] as const;

type DeclaredKind = (typeof JOB_KINDS)[number];

/**
 * Every workflow, by the type name it is started with, and its signature. workflows/index.ts exports
 * each under that name (checked at compile time by workers/pools/workflows.ts); lib/temporal/jobs.ts
 * starts them by name with arguments checked against the signature.
 */
export type JobWorkflows = { [D in DeclaredKind as D['workflow']]: NonNullable<D['signature']> };

export type JobWorkflowType = keyof JobWorkflows;

/** Every workflow type name, for what goes through them all (the operator's job counts). */
export const JOB_WORKFLOW_TYPES: readonly JobWorkflowType[] = JOB_KINDS.map((k) => k.workflow);

/** The kinds whose jobs are MCP tasks (api/services/task-kinds.ts has the rules of each). */
export type TaskJobKind = Extract<DeclaredKind, { task: object }>['kind'];
export const TASK_JOB_KINDS = JOB_KINDS.filter((k): k is Extract<DeclaredKind, { task: object }> => 'task' in k);
