// What a job kind declares once, in its file of lib/jobs/ (lib/jobs/load-test.ts, ...): the prefix of its
// ids, its workflow's type name and signature, the pools its activities run on, whether it is an MCP task.
// The list of them (JOB_KINDS, lib/jobs/index.ts) is where the rest is derived from: the workflow names
// the API starts and the operator counts, the task kinds api/services/task-kinds.ts must give rules for.
// Pure data: it goes into the workflow bundle with the rest of lib/jobs/.
import type { Workflow } from '@temporalio/common';
import type { ActivityPool } from './task-queues.ts';

export interface JobKindDeclaration {
  /**
   * The prefix of its workflow ids (`load-test-<public id>`), and its kind in the memo and the search
   * attributes (what tasks/list asks Temporal for). For the service's own work, its one workflow's id
   * (or the id of the schedule that starts it).
   */
  readonly kind: string;
  /** Its workflow's type name: workflows/index.ts exports the workflow under it (the compiler checks). */
  readonly workflow: string;
  /** The pools whose task queues run its activities (the workflow itself runs on `workflows`). */
  readonly pools: readonly ActivityPool[];
  /**
   * Set for a job a user starts that is an MCP task (api/services/task-kinds.ts gives its status,
   * result and cancel). `restStarted`: whether one started by REST is a whole task too (a bulk check or
   * a site job started by REST keeps only part of its answer, so only those an MCP call started are).
   */
  readonly task?: { readonly restStarted: boolean };
  /** For the service's own work (no owner, never a task): what it does, instead of `task`. */
  readonly internal?: string;
}

/** A declaration with its workflow's signature (a type only: `signature` is never set). */
export type JobKind<D extends JobKindDeclaration = JobKindDeclaration, F extends Workflow = Workflow> = D & {
  readonly signature?: F;
};

/**
 * Declares a job kind whose workflow has the signature F:
 *   export const LOAD_TEST_JOB = defineJobKind<LoadTestWorkflow>()({ kind: 'load-test', workflow: 'loadTest', ... });
 * (Two calls: F is given, the declaration's literal types are inferred.)
 */
export function defineJobKind<F extends Workflow>() {
  return <const D extends JobKindDeclaration>(declaration: D): JobKind<D, F> => declaration;
}
