// A load test as a task: its status from the test's own state (a test asked to stop is cancelled from
// then on), its result the results endpoint's, and cancelling it stops it (keeping its partial results).
import { LOAD_TEST_KIND } from '../../../lib/jobs/load-test.ts';
import { cancelWorkflow, type TaskDeps, type TaskRules } from './task-rules.ts';

/** How long the result of a stopping load test waits for its end. */
const RESULT_WAIT_MS = 20_000;

export function loadTestTask({ temporal, loadTests }: TaskDeps): TaskRules {
  return {
    async view(testId, userId) {
      const s = await loadTests.statusOf(testId, userId);
      const totals = s.metrics
        ? `, ${s.metrics.total_requests ?? 0} requests, ${s.metrics.failed_requests ?? 0} failed`
        : '';
      // A test asked to stop is a cancelled task from then on (its result waits for the shards' last totals).
      if (s.stop_requested || s.status === 'stopped')
        return {
          status: 'cancelled',
          statusMessage: `${s.status === 'stopped' ? 'stopped' : 'stopping'} at ${s.progress}%${totals}`,
          progress: s.progress,
        };
      switch (s.status) {
        case 'pending':
          return { status: 'working', statusMessage: 'pending: waiting for a load worker', progress: 0 };
        case 'running':
          return { status: 'working', statusMessage: `running: ${s.progress}%${totals}`, progress: s.progress };
        case 'completed':
          return { status: 'completed', statusMessage: `completed${totals}`, progress: 100 };
        default:
          return { status: 'failed', statusMessage: `failed: ${s.failure_reason ?? 'no reason recorded'}` };
      }
    },
    async result(testId, userId) {
      // A stopping test's results come when its shards have reported (a few seconds).
      const deadline = Date.now() + RESULT_WAIT_MS;
      for (;;) {
        const status = await loadTests.statusOf(testId, userId);
        if (!['pending', 'running'].includes(status.status)) return loadTests.results(testId, userId);
        // Still open past the wait (shards slow to report): what is known, never an error on an ended task.
        if (Date.now() > deadline)
          return {
            success: true,
            test_id: testId,
            status: 'stopping',
            results: null,
            partial_totals: status.metrics,
            message: 'the shards have not reported their last totals yet: load_test_results has them when they do',
          };
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    },
    async cancel(testId, userId) {
      const row = await loadTests.owned(testId, userId);
      // No load worker has it yet: cancelling the workflow ends it stopped, nothing sent.
      if (row.status === 'pending') return cancelWorkflow(temporal, LOAD_TEST_KIND, testId);
      await loadTests.stop(row);
    },
  };
}
