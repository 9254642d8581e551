// A site job (site discovery, page audit) as a task: one activity whose failures are values (Outcome),
// so a completed workflow may be a failed task; its result the site endpoint's answer.
import { AppError } from '../../../lib/errors.ts';
import type { Outcome, PAGE_AUDIT_KIND, SITE_DISCOVERY_KIND } from '../../../lib/jobs/site.ts';
import {
  cancelWorkflow,
  failedJobAnswer,
  fromExecution,
  workflowOf,
  type TaskDeps,
  type TaskRules,
} from './task-rules.ts';

export function siteTask(kind: typeof SITE_DISCOVERY_KIND | typeof PAGE_AUDIT_KIND) {
  return ({ temporal, site }: TaskDeps): TaskRules => ({
    async view(id, _userId, execution) {
      const status = fromExecution(execution);
      if (status !== 'completed')
        return {
          status,
          statusMessage: status === 'working' ? 'fetching and reading the site' : execution.toLowerCase(),
        };
      const outcome = (await workflowOf(temporal, kind, id).result()) as Outcome<unknown>;
      return outcome.ok
        ? {
            status,
            statusMessage: outcome.storedAt !== undefined ? 'completed (from the cache)' : 'completed',
            progress: 100,
          }
        : { status: 'failed', statusMessage: `failed: ${outcome.message}` };
    },
    async result(id) {
      try {
        return { ...(await site.jobAnswer(`${kind}-${id}`)) };
      } catch (err) {
        if (err instanceof AppError) return { success: false, error: err.message };
        const failed = failedJobAnswer(err, {
          cancelled: 'The job was cancelled.',
          unfinished: 'The job did not finish.',
        });
        if (failed) return failed;
        throw err;
      }
    },
    cancel: (id) => cancelWorkflow(temporal, kind, id),
  });
}
