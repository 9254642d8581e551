// A read that finds a test's workflow closed stores the end it finds, only over the row as it read it:
// when another writer ended the row first (a terminated workflow's merge that still finished), the
// answer is the row as stored, not the end this read found. The Temporal client is a stub that says
// how the workflow stands; the database is a real embedded one.
import type { Client } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTestStates } from '../../../../../api/services/load-tests/load-test-state.ts';
import { openDatabase } from '../../../../../db/connect.ts';
import { createLoadTest, findOwnedLoadTest, finishLoadTestRow } from '../../../../../db/load/load-tests.ts';
import { upsertUser } from '../../../../../db/users.ts';
import type { FinalResults } from '../../../../../lib/jobs/load-results.ts';
import { useDatabase } from '../../../../support/databases.ts';
import { loadTestConfig } from '../../../../support/load-config.ts';
import { tempDir } from '../../../../support/processes.ts';

const database = useDatabase(async () =>
  openDatabase({ databaseUrl: undefined, dataDir: await tempDir('test-state') }),
);
let userId: number;

beforeAll(async () => {
  userId = (await upsertUser(database.db, 'load-test-state@example.test', 'free')).id;
});

/** A Temporal client whose every load test workflow was terminated at `closeTime`. */
const terminated = (closeTime: Date) =>
  ({
    withDeadline: <T>(_deadline: number, read: () => Promise<T>) => read(),
    workflow: {
      getHandle: () => ({ describe: async () => ({ status: { name: 'TERMINATED' }, closeTime }) }),
    },
  }) as unknown as Client;

/** A test that started a minute ago with a 10-s window: past its window and the grace after it. */
async function overdueTest() {
  const id = `t${Math.random().toString(36).slice(2, 12)}`;
  expect(await createLoadTest(database.db, { id, userId, config: loadTestConfig('http://127.0.0.1:9/') })).toBe(true);
  await database.db
    .updateTable('load_tests')
    .set({ status: 'running', started_at: new Date(Date.now() - 60_000).toISOString() })
    .where('id', '=', id)
    .execute();
  return (await findOwnedLoadTest(database.db, id, userId))!;
}

/** Results of a test that sent nothing: every figure 0. */
const finalResults = (): FinalResults => ({
  total_requests: 0,
  successful_requests: 0,
  failed_requests: 0,
  avg_response_time: 0,
  throughput: 0,
  error_rate: 0,
  connection_errors: 0,
  total_bytes_sent: 0,
  total_bytes_received: 0,
  min_response_time: 0,
  max_response_time: 0,
  p50_response_time: 0,
  p75_response_time: 0,
  p90_response_time: 0,
  p95_response_time: 0,
  p99_response_time: 0,
  duration_seconds: 0,
  status_codes: {},
  errors: {},
  dropped_requests: 0,
  shard_failures: 0,
  requests_lost: 0,
  shard_restarts: 0,
  seconds_without_traffic: 0,
  requests_per_second: [],
  error_rate_per_second: [],
  avg_response_time_per_second: [],
  max_response_time_per_second: [],
});

describe('loadTestStates', () => {
  it("stores the end it finds for a running test whose workflow closed, at the workflow's close", async () => {
    const closeTime = new Date(Date.now() - 30_000);
    const row = await overdueTest();
    const state = await loadTestStates(database.db, terminated(closeTime))(row);
    const reason = 'its workflow ended (terminated) while the test ran: nothing was merged';
    expect(state).toMatchObject({ status: 'failed', failureReason: reason, completedAt: closeTime.getTime() });
    expect(await findOwnedLoadTest(database.db, row.id, userId)).toMatchObject({
      status: 'failed',
      failureReason: reason,
      completedAt: closeTime,
    });
  });

  it('answers with the row as stored when its end was stored after it was read', async () => {
    const row = await overdueTest();
    // The merge of the terminated workflow's last attempt stored its results after this row was read.
    const results = { ...finalResults(), total_requests: 42, successful_requests: 42 };
    expect(await finishLoadTestRow(database.db, row.id, 'completed', results, null, { onlyIfStatus: 'running' })).toBe(
      true,
    );
    const state = await loadTestStates(database.db, terminated(new Date()))(row);
    expect(state).toMatchObject({ status: 'completed', failureReason: null, results });
    expect((await findOwnedLoadTest(database.db, row.id, userId))?.status).toBe('completed');
  });
});
