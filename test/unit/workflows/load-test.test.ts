// A load test on a real Temporal server: its shards planned from the users, run, merged and stored by
// the load pool's activities (stubs here, which log what they were asked, in order). A stop has one
// way in, the workflow (its owner's signal or a failing aborting threshold), and one way to the
// shards, the stopLoadShards activity, asked once and before the end is stored.
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { LoadActivities } from '../../../activities/load/index.ts';
import type { LoadOutputActivities } from '../../../activities/load/outputs.ts';
import {
  getLoadTestState,
  stopLoadTest,
  type FinalResults,
  type LoadTestInput,
  type LoadThreshold,
} from '../../../lib/jobs/index.ts';
import { gate, scheduledActivities, until, useWorkflowEnv } from '../../support/workflow-env.ts';

const input = (over: Partial<LoadTestInput> = {}): LoadTestInput => ({
  testId: `t${Math.random().toString(36).slice(2, 10)}`,
  target: { url: 'http://load.example/', method: 'GET', headers: {} },
  concurrentUsers: 1200,
  testDurationSeconds: 10,
  rampUpSeconds: 0,
  requestsPerSecond: 0,
  waitForWorkerSeconds: 10,
  ...over,
});
const results = { total_requests: 42, verdict: 'passed' } as FinalResults;
const aborting: LoadThreshold = {
  threshold: 'p95 < 1',
  metric: 'p95',
  op: '<',
  value: 1,
  abortOnFail: true,
  delayAbortEval: 0,
};

/** What the stubs were asked, in order. */
let log: string[] = [];
/** Opened when the shards may end (a stop's arrival, say); the shards heartbeat meanwhile. */
let shardsEnd = gate();
const load = {
  beginLoadTest: vi.fn<LoadActivities['beginLoadTest']>(),
  runLoadShard: vi.fn<LoadActivities['runLoadShard']>(),
  watchThresholds: vi.fn<LoadActivities['watchThresholds']>(),
  stopLoadShards: vi.fn<LoadActivities['stopLoadShards']>(),
  finishLoadTest: vi.fn<LoadActivities['finishLoadTest']>(),
  sendLoadOutputs: vi.fn<LoadOutputActivities['sendLoadOutputs']>(),
};

const env = useWorkflowEnv({
  workflows: 'workflows/load-test.ts',
  activities: { load },
  activityWorkerOptions: { maxHeartbeatThrottleInterval: '100ms' },
});
beforeEach(() => {
  log = [];
  shardsEnd = gate();
  shardsEnd.open();
  load.beginLoadTest.mockReset().mockImplementation(async () => {
    log.push('begin');
    return Date.now();
  });
  load.runLoadShard.mockReset().mockImplementation(async (shard) => {
    log.push(`shard ${shard.shard}: users ${shard.firstUser}+${shard.users}`);
    let ended = false;
    void shardsEnd.opened.then(() => (ended = true));
    while (!ended) {
      Context.current().heartbeat();
      await sleep(50);
    }
    return { total: 10, stopped: false };
  });
  load.watchThresholds.mockReset().mockImplementation(async () => {
    log.push('watch');
    return { abortedBy: null };
  });
  load.stopLoadShards.mockReset().mockImplementation(async (testId) => {
    // The shards end before the stop is stored: the end must wait for it all the same.
    shardsEnd.open();
    await sleep(300);
    log.push(`stop ${testId}`);
  });
  load.finishLoadTest.mockReset().mockImplementation(async (_testId, status, reason, _thresholds, abortedBy) => {
    log.push(`finish ${status}${reason ? `: ${reason}` : ''}${abortedBy ? ` (aborted by ${abortedBy})` : ''}`);
    return results;
  });
  load.sendLoadOutputs.mockReset().mockImplementation(async (o) => {
    log.push(`outputs ${o.final ? 'final' : 'live'}`);
    // The live sender runs until the workflow cancels it, when the shards have ended.
    if (!o.final) {
      while (!Context.current().cancellationSignal.aborted) {
        Context.current().heartbeat();
        await sleep(50);
      }
      await sleep(300); // its last state stored: the last write must wait for it
      log.push('outputs live stopped');
    } else throw new Error('the receiver refused');
  });
});

describe('loadTest', () => {
  it('runs a shard per 500 users, merges and stores the end once, and answers the stored results', async () => {
    const test = input();
    const handle = await env.start('loadTest', [test]);
    const state = await handle.result();
    expect(state).toMatchObject({ status: 'completed', failureReason: null, stopRequested: false, results });
    expect(state.endAt! - state.startAt!).toBe(10_000);
    expect(log.filter((l) => l.startsWith('shard')).sort()).toEqual([
      'shard 0: users 0+400',
      'shard 1: users 400+400',
      'shard 2: users 800+400',
    ]);
    expect(log[0]).toBe('begin');
    expect(log.at(-1)).toBe('finish completed');
    expect(load.stopLoadShards).not.toHaveBeenCalled();
    expect(load.finishLoadTest).toHaveBeenCalledTimes(1);
    await env.record(handle, 'load-test');
  });

  it("stops on its owner's signal: the workflow asks the shards once, then stores the end as stopped", async () => {
    shardsEnd = gate();
    const test = input({ concurrentUsers: 2 });
    const handle = await env.start('loadTest', [test]);
    await until('the test running', async () => (await handle.query(getLoadTestState)).status === 'running');
    await until('a shard sending', () => log.some((l) => l.startsWith('shard')));
    expect(load.stopLoadShards).not.toHaveBeenCalled();
    await handle.signal(stopLoadTest);
    await handle.signal(stopLoadTest); // a second stop asks nothing more
    const state = await handle.result();
    expect(state).toMatchObject({ status: 'stopped', stopRequested: true, failureReason: null, results });
    expect(load.stopLoadShards.mock.calls).toEqual([[test.testId]]);
    expect(log.slice(-2)).toEqual([`stop ${test.testId}`, 'finish stopped']);
    expect(await scheduledActivities(handle)).toEqual([
      'beginLoadTest',
      'runLoadShard',
      'stopLoadShards',
      'finishLoadTest',
    ]);
  });

  it('stops when an aborting threshold fails, through the same activity, and says which threshold', async () => {
    shardsEnd = gate();
    load.watchThresholds.mockImplementation(async () => {
      log.push('watch');
      return { abortedBy: aborting.threshold };
    });
    const test = input({ concurrentUsers: 2, thresholds: [aborting] });
    const state = await (await env.start('loadTest', [test])).result();
    expect(state).toMatchObject({
      status: 'stopped',
      stopRequested: true,
      failureReason: 'stopped by the failing threshold "p95 < 1"',
    });
    expect(load.stopLoadShards.mock.calls).toEqual([[test.testId]]);
    expect(log.at(-2)).toBe(`stop ${test.testId}`);
    expect(log.at(-1)).toBe('finish stopped: stopped by the failing threshold "p95 < 1" (aborted by p95 < 1)');
  });

  it('fails when every shard fails, and still stores the end with what the shards sent', async () => {
    load.runLoadShard.mockRejectedValue(ApplicationFailure.nonRetryable('the target refused', 'Refused'));
    const state = await (await env.start('loadTest', [input({ concurrentUsers: 2 })])).result();
    expect(state.status).toBe('failed');
    expect(state.failureReason).toBe('every shard failed: the target refused');
    expect(log.at(-1)).toBe('finish failed: every shard failed: the target refused');
  });

  it(
    'fails without a merge when no load worker begins it ' + '(nothing ran, nothing to store from the workers)',
    async () => {
      load.beginLoadTest.mockRejectedValue(ApplicationFailure.nonRetryable('no worker', 'NoWorker'));
      const state = await (await env.start('loadTest', [input()])).result();
      expect(state).toMatchObject({ status: 'failed', results: null });
      expect(state.failureReason).toMatch(/^no load worker took the test within 10 seconds: no worker$/);
      expect(load.runLoadShard).not.toHaveBeenCalled();
      expect(load.finishLoadTest).not.toHaveBeenCalled();
    },
  );

  it(
    'with outputs: one sender while the shards run, cancelled when they end; ' +
      "a last write after the results, whose failure is not the test's",
    async () => {
      const output = { index: 0, url: 'http://metrics.example/api/v1/write', headers: {}, intervalSeconds: 5 };
      const test = input({ concurrentUsers: 2, outputs: [output], tags: { env: 'ci' } });
      const handle = await env.start('loadTest', [test]);
      const state = await handle.result();
      expect(state).toMatchObject({ status: 'completed', results });
      expect(log.filter((l) => !l.startsWith('shard'))).toEqual([
        'begin',
        'outputs live',
        'finish completed',
        'outputs live stopped',
        'outputs final',
      ]);
      // The last write is tried once (a second attempt beside a slow first would count twice).
      expect(load.sendLoadOutputs.mock.calls.map(([o]) => o)).toEqual([
        expect.objectContaining({ testId: test.testId, outputs: [output], tags: { env: 'ci' }, final: false }),
        expect.objectContaining({ targetUrl: 'http://load.example/', final: true }),
      ]);
      expect(load.sendLoadOutputs).toHaveBeenCalledTimes(2);
    },
  );

  it('replays the recorded history with the current code', async () => {
    await env.replay('load-test');
  });
});
