// The pipeline check on a real Temporal server: it asks a worker of every pool to report, keeps each
// answer in its state (a query), carries the request id of its memo to every pool, and fails naming
// the pool that did not answer.
import os from 'node:os';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import type { DiagnosticsActivities } from '../../../activities/diagnostics/index.ts';
import { createDiagnosticsActivities } from '../../../activities/diagnostics/index.ts';
import { ACTIVITY_POOLS, getPipelineCheckState, type ActivityPool } from '../../../lib/jobs/index.ts';
import { gate, until, useWorkflowEnv } from '../../support/workflow-env.ts';

/** Each pool's reportWorker: the real one (what the pools register) unless a test says otherwise. */
const reportWorker = Object.fromEntries(
  ACTIVITY_POOLS.map((pool) => [pool, vi.fn<DiagnosticsActivities['reportWorker']>()]),
) as Record<ActivityPool, Mock<DiagnosticsActivities['reportWorker']>>;

const env = useWorkflowEnv({
  workflows: 'workflows/pipeline-check.ts',
  activities: Object.fromEntries(ACTIVITY_POOLS.map((pool) => [pool, { reportWorker: reportWorker[pool] }])),
});
beforeEach(() => {
  for (const pool of ACTIVITY_POOLS)
    reportWorker[pool].mockReset().mockImplementation(createDiagnosticsActivities(pool).reportWorker);
});

const reported = (pool: ActivityPool, requestId: string | null) => ({
  status: 'ok',
  worker: { pool, hostname: os.hostname(), pid: process.pid, answeredAt: expect.any(String), requestId },
});

describe('pipelineCheck', () => {
  it(
    'reaches a worker of every pool, ' + "each report carrying the id of the request behind the job (the memo's)",
    async () => {
      const handle = await env.start('pipelineCheck', [], { memo: { requestId: 'req-pipeline-1' } });
      const result = await handle.result();
      expect(result).toEqual({
        status: 'completed',
        startedAt: (await handle.describe()).startTime.toISOString(),
        completedAt: expect.any(String),
        pools: {
          network: reported('network', 'req-pipeline-1'),
          load: reported('load', 'req-pipeline-1'),
          media: reported('media', 'req-pipeline-1'),
        },
      });
      expect(Date.parse(result.completedAt!)).toBeGreaterThanOrEqual(Date.parse(result.startedAt));
      for (const pool of ACTIVITY_POOLS) expect(reportWorker[pool]).toHaveBeenCalledTimes(1);
      await env.record(handle, 'pipeline-check');
    },
  );

  it('reports no request id when the job has none', async () => {
    const result = await (await env.start('pipelineCheck', [])).result();
    expect(result.pools.network).toEqual(reported('network', null));
  });

  it('answers its state while a pool has not answered, then fails naming the pool that failed', async () => {
    const loadAsked = gate();
    const loadAnswers = gate();
    reportWorker.load.mockImplementation(async () => {
      loadAsked.open();
      await Promise.race([loadAnswers.opened, Context.current().cancelled]);
      throw ApplicationFailure.nonRetryable('the load pool is draining');
    });
    const handle = await env.start('pipelineCheck', []);
    await loadAsked.opened;
    const running = await until('the network and media reports', async () => {
      const state = await handle.query(getPipelineCheckState);
      return state.pools.network.status === 'ok' && state.pools.media.status === 'ok' && state;
    });
    expect(running).toMatchObject({ status: 'running', completedAt: null, pools: { load: { status: 'pending' } } });
    loadAnswers.open();
    const result = await handle.result();
    expect(result.status).toBe('failed');
    expect(result.completedAt).not.toBeNull();
    expect(result.pools).toEqual({
      network: reported('network', null),
      media: reported('media', null),
      load: { status: 'failed', reason: 'the load worker failed: the load pool is draining' },
    });
    // Non-retryable: asked once.
    expect(reportWorker.load).toHaveBeenCalledTimes(1);
    expect(await handle.query(getPipelineCheckState)).toEqual(result);
  });

  it('replays the recorded history with the current code', async () => {
    await env.replay('pipeline-check');
  });
});
