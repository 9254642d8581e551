// A bulk domain check as a task: its progress from the names checked so far, its result the bulk
// check's answers; cancelling it cancels its workflow.
import { DOMAIN_CHECK_KIND } from '../../../lib/jobs/domain-check.ts';
import { cancelWorkflow, failedJobAnswer, fromExecution, type TaskDeps, type TaskRules } from './task-rules.ts';

export function domainCheckTask({ temporal, domains }: TaskDeps): TaskRules {
  return {
    async view(id, _userId, execution) {
      const status = fromExecution(execution);
      if (status !== 'working')
        return {
          status,
          statusMessage: execution.toLowerCase(),
          ...(status === 'completed' ? { progress: 100 } : {}),
        };
      const p = await domains.bulkProgress(`${DOMAIN_CHECK_KIND}-${id}`);
      return p
        ? {
            status,
            statusMessage: `checked ${p.done} of ${p.total} names`,
            progress: p.total ? Math.floor((p.done / p.total) * 100) : 0,
          }
        : { status, statusMessage: 'checking' };
    },
    async result(id) {
      try {
        return await domains.bulkResult(`${DOMAIN_CHECK_KIND}-${id}`);
      } catch (err) {
        const failed = failedJobAnswer(err, { cancelled: 'cancelled', unfinished: 'the check did not finish' });
        if (failed) return failed;
        throw err;
      }
    },
    cancel: (id) => cancelWorkflow(temporal, DOMAIN_CHECK_KIND, id),
  };
}
