// A load test's state as a read tells it: its stored row, and for a row whose end may be missing (pending,
// or running past its window) how its workflow stands on the Temporal server, storing the end it finds.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Kysely } from 'kysely';
import { findOwnedLoadTest, finishLoadTestRow, type LoadTestRow } from '../../../db/load/load-tests.ts';
import type { Database } from '../../../db/schema.ts';
import { RecentMap } from '../../../lib/cache/recent-map.ts';
import { LOAD_TEST_KIND, type LoadTestState } from '../../../lib/jobs/load-test.ts';
import { temporalRead, workflowIdOf, workflowOutcome } from '../../../lib/temporal/jobs.ts';

/**
 * A test still running this long past its window (its merge takes seconds) has its reads ask, every
 * OVERDUE_CHECK_MS, whether its workflow closed without storing its end.
 */
const OVERDUE_AFTER_MS = 10_000;
const OVERDUE_CHECK_MS = 5_000;
const NOT_FOUND = 'not found';
/** A pending row younger than this whose workflow the server does not know may be starting it still. */
const STARTING_MS = 60_000;

/** `stateOf(row)`: the state of a test as read now (see the function). */
export function loadTestStates(db: Kysely<Database>, temporal: Client): (row: LoadTestRow) => Promise<LoadTestState> {
  /** When each test running past its window was last asked about (OVERDUE_CHECK_MS). */
  const overdueChecks = new RecentMap<string, number>(1024);
  /** Whether a read of `row` should ask the Temporal server how its workflow stands. */
  function askTemporal(row: LoadTestRow, endAt: number | null): boolean {
    if (row.status === 'pending') return true;
    const now = Date.now();
    if (row.status !== 'running' || endAt === null || now < endAt + OVERDUE_AFTER_MS) return false;
    if (now - (overdueChecks.get(row.id) ?? 0) < OVERDUE_CHECK_MS) return false;
    overdueChecks.set(row.id, now);
    return true;
  }

  /**
   * How the row's workflow stands, from the Temporal server alone. A running row answers from the
   * database while the server is away (null: this check waits for the next read); a pending one cannot.
   */
  async function workflowOf(row: LoadTestRow) {
    const handle = temporal.workflow.getHandle(workflowIdOf(LOAD_TEST_KIND, row.id));
    const read = temporalRead(temporal, () => workflowOutcome<LoadTestState>(handle), 'test', {
      serverOnly: true,
    }).catch((err) => {
      // Past the server's retention (or never started): no workflow left to say how the test ended.
      if (err instanceof WorkflowNotFoundError) return { closed: NOT_FOUND, closeTime: new Date() };
      throw err;
    });
    return row.status === 'pending' ? read : read.catch(() => null);
  }

  /**
   * A test's state: the stored row, which holds all a status needs (the start, the window, a stop asked
   * for, the end with its results), so a poll is a read of the database, never a workflow task on the
   * workflows worker, whatever the number of users. A pending row, and a running one past its window
   * (every OVERDUE_CHECK_MS), also ask the Temporal server whether the workflow closed without storing
   * its end (no load worker took it, an operator ended it, its merge failed for good), and store that
   * end: the server alone answers, so no busy or missing workflows worker holds a read up.
   */
  async function stateOf(row: LoadTestRow): Promise<LoadTestState> {
    const stored = storedState(row);
    if (!askTemporal(row, stored.endAt)) return stored;
    const outcome = await workflowOf(row);
    if (!outcome || 'open' in outcome) return stored;
    if ('closed' in outcome && outcome.closed === NOT_FOUND && Date.now() - row.createdAt.getTime() < STARTING_MS)
      return stored;
    const when = row.status === 'pending' ? 'before a load worker took it' : 'while the test ran: nothing was merged';
    const state: LoadTestState =
      'result' in outcome
        ? outcome.result
        : {
            ...stored,
            status: 'failed',
            completedAt: outcome.closeTime.getTime(),
            failureReason:
              outcome.closed === NOT_FOUND
                ? `its workflow is not in Temporal (past its retention, or never started) ${when}`
                : `its workflow ended (${outcome.closed}) ${when}`,
          };
    // Only over the row as read: a load worker may have taken a pending test since, or its end been stored
    // (a terminated workflow's merge may still finish): then the row as it is now is the answer (the end
    // found, when the row is gone meanwhile).
    const written = await finishLoadTestRow(db, row.id, state.status, state.results, state.failureReason, {
      onlyIfStatus: row.status,
      ...(state.completedAt ? { completedAt: new Date(state.completedAt) } : {}),
    });
    if (written) return state;
    const current = await findOwnedLoadTest(db, row.id, row.userId);
    return current ? storedState(current) : state;
  }

  return stateOf;
}

/** A test's state as its row holds it. */
function storedState(row: LoadTestRow): LoadTestState {
  return {
    status: row.status,
    startAt: row.startedAt?.getTime() ?? null,
    endAt: row.startedAt ? row.startedAt.getTime() + row.config.test_duration * 1000 : null,
    completedAt: row.completedAt?.getTime() ?? null,
    stopRequested: row.stopRequested,
    failureReason: row.failureReason,
    results: row.results,
  };
}
