// A load test: pending until a load worker takes it, running while its shards (activities on the
// load pool, USERS_PER_SHARD users each, or more to keep HTTP/2's shared connections whole) send the
// load, then completed, stopped or failed.
// The history stays small whatever the duration: a handful of activities per shard attempt, one
// signal per stop; live totals travel through the database, not through events. A stop has one way
// in, this workflow (its owner's signal, a failing threshold), and one way out: the workflow asks the
// shards (stopLoadShards), which read it with their next snapshot.
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { LoadActivities } from '../activities/load/index.ts';
import { activityCause } from './activity-failures.ts';
import type { LoadOutputActivities } from '../activities/load/outputs.ts';
import {
  getLoadTestState,
  stopLoadTest,
  TASK_QUEUES,
  type LoadTestInput,
  type LoadTestState,
  type LoadTestStatus,
} from '../lib/jobs/index.ts';
import { planShards, SHARD_RETRY, shardLiveness } from './load-test-plan.ts';
export async function loadTest(input: LoadTestInput): Promise<LoadTestState> {
  // How long the test may wait for a load worker before it fails (LOAD_WORKER_WAIT_SECONDS).
  const waitForWorker = `${input.waitForWorkerSeconds ?? 60} seconds`;
  const { beginLoadTest, finishLoadTest, stopLoadShards } = proxyActivities<LoadActivities>({
    taskQueue: TASK_QUEUES.load,
    scheduleToStartTimeout: waitForWorker,
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 3 },
  });
  const state: LoadTestState = {
    status: 'pending',
    startAt: null,
    endAt: null,
    completedAt: null,
    stopRequested: false,
    failureReason: null,
    results: null,
  };
  setHandler(getLoadTestState, () => state);
  setHandler(stopLoadTest, () => {
    state.stopRequested = true;
  });

  // When the row cannot be written here (no load worker to run the merge), the API writes it from
  // the closed workflow's state when it next reads the test.
  let abortedBy: string | null = null;
  // The metrics outputs' sender, and its writes while the shards run (none without outputs).
  let outputs: ReturnType<typeof outputSender> | null = null;
  let writing: Promise<void> | null = null;
  const finish = async (status: LoadTestStatus, reason: string | null, merge = true) => {
    const completedAt = Date.now();
    // Queries see the end only with its results, so that the end is never shown without them.
    // Not cancellable: a test cancelled as a task still merges and stores what its shards sent.
    if (merge)
      state.results = await CancellationScope.nonCancellable(() =>
        finishLoadTest(input.testId, status, reason, input.thresholds ?? [], abortedBy),
      );
    Object.assign(state, { status, failureReason: reason, completedAt });
    // The outputs' last write, from the results' own merge, once the live writes have stopped (so it
    // is the last, and counted after them); a failed one is the output's, not the test's.
    const sender = outputs;
    if (merge && sender)
      await CancellationScope.nonCancellable(async () => {
        await Promise.race([writing, sleep('20 seconds')]);
        await sender.last().catch(() => {});
      });
    return state;
  };

  let startAt: number;
  try {
    startAt = await beginLoadTest(input.testId);
  } catch (err) {
    // Cancelled while pending (an MCP task cancelled before a load worker took it): nothing ran.
    if (isCancellation(err)) return finish('stopped', 'cancelled before a load worker took it', false);
    // No load worker: nothing ran, nothing to merge, and no worker would run the merge either.
    return finish('failed', `no load worker took the test within ${waitForWorker}: ${reasonOf(err)}`, false);
  }
  state.status = 'running';
  state.startAt = startAt;
  state.endAt = startAt + input.testDurationSeconds * 1000;
  // The metrics outputs: written every interval while the shards run (cancelled when they end).
  outputs = input.outputs?.length ? outputSender(input, startAt, state.endAt) : null;
  const outputScope = new CancellationScope();
  const sender = outputs;
  if (sender) writing = outputScope.run(() => sender.live()).catch(() => {});

  // Once running, a stop (asked now or later) reaches the shards; not cancellable, as the merge is not.
  // (A stop that cannot be stored loses only its haste: the shards end with the test's window.)
  const stopping = condition(() => state.stopRequested)
    .then(() => CancellationScope.nonCancellable(() => stopLoadShards(input.testId)))
    .catch(() => {});

  // A shard attempt whose worker dies stops heartbeating and is retried on another worker, inside
  // the same time window; what the dead attempt had sent stays counted, and the gap is in the results.
  const { watchThresholds } = proxyActivities<LoadActivities>({
    taskQueue: TASK_QUEUES.load,
    startToCloseTimeout: `${input.testDurationSeconds + 60} seconds`,
    heartbeatTimeout: '15 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
  });
  const shards = planShards(input, state.startAt, state.endAt);
  const { runLoadShard } = proxyActivities<LoadActivities>({
    taskQueue: TASK_QUEUES.load,
    startToCloseTimeout: `${input.testDurationSeconds + 120} seconds`,
    // Every attempt shares the test's window; past it a retry has nothing left to send.
    scheduleToCloseTimeout: `${input.testDurationSeconds + 180} seconds`,
    heartbeatTimeout: shardLiveness(shards.length).heartbeatTimeoutMs,
    retry: SHARD_RETRY,
  });
  // Aborting thresholds are watched on the merged totals every second; a failing one stops the shards.
  const watchScope = new CancellationScope();
  const watch = input.thresholds?.some((t) => t.abortOnFail)
    ? watchScope
        .run(() =>
          watchThresholds({ testId: input.testId, thresholds: input.thresholds!, startAt, endAt: state.endAt! }),
        )
        .then(({ abortedBy: failed }) => {
          if (!failed) return;
          abortedBy = failed;
          state.stopRequested = true;
        })
        .catch(() => {}) // a lost watcher loses the abort, never the test
    : null;
  const outcomes = await Promise.allSettled(shards.map((shard) => runLoadShard({ testId: input.testId, ...shard })));
  if (watch) {
    // Not cancellable: a cancelled workflow still reaches its merge below.
    await CancellationScope.nonCancellable(() => Promise.race([watch, sleep('3 seconds')]));
    watchScope.cancel();
  }
  outputScope.cancel();
  const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
  // The stop's request is stored before the end is, so that the row never ends still asking.
  if (state.stopRequested) await stopping;

  // The workflow cancelled (a task cancelled just as a load worker took the test): its shards stopped.
  const cancelled = failures.length > 0 && failures.every((f) => isCancellation(f.reason));
  if (failures.length === shards.length && !cancelled)
    return finish('failed', `every shard failed: ${reasonOf(failures[0]!.reason)}`);
  if (cancelled) return finish('stopped', null);
  const stopped = state.stopRequested;
  const shardTrouble = failures.length
    ? `${failures.length} of ${shards.length} shards failed: ${reasonOf(failures[0]!.reason)}`
    : null;
  return finish(
    stopped ? 'stopped' : 'completed',
    abortedBy
      ? `stopped by the failing threshold "${abortedBy}"${shardTrouble ? `; ${shardTrouble}` : ''}`
      : shardTrouble,
  );
}

function reasonOf(err: unknown): string {
  return activityCause(err)?.message ?? String(err);
}

/** The test's one sender of its remote-write outputs (activities/load/outputs.ts): its live writes, then its last. */
function outputSender(input: LoadTestInput, startAt: number, endAt: number) {
  const { sendLoadOutputs: live } = proxyActivities<LoadOutputActivities>({
    taskQueue: TASK_QUEUES.load,
    startToCloseTimeout: `${input.testDurationSeconds + 120} seconds`,
    heartbeatTimeout: '30 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
    // A cancelled live sender has stopped (its last state stored) before the last write starts.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  // Never retried: a second attempt beside a slow first would write, and count, twice.
  const { sendLoadOutputs: last } = proxyActivities<LoadOutputActivities>({
    taskQueue: TASK_QUEUES.load,
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: '30 seconds',
    retry: { maximumAttempts: 1 },
  });
  const profile = {
    concurrentUsers: input.concurrentUsers,
    rampUpSeconds: input.rampUpSeconds,
    testDurationSeconds: input.testDurationSeconds,
    requestsPerSecond: input.requestsPerSecond,
    ...(input.stages ? { stages: input.stages } : {}),
  };
  const sent = (final: boolean) => ({
    testId: input.testId,
    outputs: input.outputs!,
    targetUrl: input.target.url,
    tags: input.tags ?? {},
    profile,
    startAt,
    endAt,
    final,
  });
  return { live: () => live(sent(false)), last: () => last(sent(true)) };
}
