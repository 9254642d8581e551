// Follows a running load test on its status stream until it ends, with one live progress line on
// stderr (cli-progress: redrawn in place on a terminal, a line every few seconds in CI logs). A
// dropped stream is opened again (a CI step gives up after 12 failed connections in a row, about two
// minutes); Ctrl-C stops the test on the service (once it runs, if it is still pending) and waits for
// its end, so the partial results can be printed.
import { SingleBar } from 'cli-progress';
import { loadTestOperations as ops } from '../contract.ts';
import { pathOf, type Client } from '../client.ts';
import { ApiError } from '../errors.ts';
import { plural } from '../../lib/load/plural.ts';
import { note, err } from '../output.ts';
import { follow } from '../sse.ts';

/** A test's status as the API answers it (the fields the CLI reads). */
export interface LiveStatus {
  status: string;
  progress: number;
  metrics: {
    total_requests: number;
    throughput: number;
    error_rate: number;
    avg_response_time: number;
    p95_response_time?: number;
    connection_errors?: number;
  };
  started_at: string | null;
  estimated_completion: string | null;
  thresholds?: Array<{ threshold: string; observed: number; pass: boolean }>;
  config: { concurrent_users?: number; test_duration?: number };
}

const ENDED = ['completed', 'stopped', 'failed'];

/** The progress line's fields of a status. */
export function payload(s: LiveStatus) {
  const started = s.started_at ? Date.parse(s.started_at) : null;
  const total =
    s.config.test_duration ??
    (started && s.estimated_completion ? Math.round((Date.parse(s.estimated_completion) - started) / 1000) : 0);
  const elapsed = started ? Math.min(total, Math.max(0, Math.round((Date.now() - started) / 1000))) : 0;
  const passing = s.thresholds ? `${s.thresholds.filter((t) => t.pass).length}/${s.thresholds.length} passing` : 'none';
  return {
    state: s.status.padEnd(7),
    elapsed_s: elapsed,
    total_s: total,
    users: s.config.concurrent_users === undefined ? '? users' : plural(s.config.concurrent_users, 'user'),
    rps: s.metrics.throughput,
    p95: `${s.metrics.p95_response_time ?? 0} ms`,
    // Connection errors are in the error rate, and said apart: a dead target shows as one.
    errors:
      `${s.metrics.error_rate}%` +
      (s.metrics.connection_errors ? ` (${plural(s.metrics.connection_errors, 'connection error')})` : ''),
    thr: passing,
  };
}

export async function followTest(c: Client, testId: string): Promise<{ status: string; stoppedHere: boolean }> {
  const bar = new SingleBar({
    stream: process.stderr,
    format:
      '{state} {bar} {elapsed_s}/{total_s} s | {users} | {rps} req/s | p95 {p95} | errors {errors} | ' +
      'thresholds {thr}',
    barsize: 20,
    hideCursor: true,
    noTTYOutput: true,
    notTTYSchedule: 5000,
    barCompleteChar: '=',
    barIncompleteChar: '-',
  });
  bar.start(100, 0, {
    state: 'pending',
    elapsed_s: 0,
    total_s: 0,
    users: '? users',
    rps: 0,
    p95: '0 ms',
    errors: '0%',
    thr: 'none',
  });
  let last = 'pending';
  let stoppedHere = false;
  let stopSent = false;
  const sendStop = () => {
    if (stopSent || ENDED.includes(last)) return;
    // A pending test cannot be stopped yet (409): asked again when it runs.
    if (last === 'pending') return;
    stopSent = true;
    c.call('POST', pathOf(ops.stop, { test_id: testId })).catch((e: Error) => {
      if (!(e instanceof ApiError && e.status === 409)) note(err.red(`Stopping failed: ${e.message}`));
    });
  };
  const onSignal = () => {
    if (stoppedHere) process.exit(1); // a second Ctrl-C: leave it running
    stoppedHere = true;
    note(err.yellow('\nStopping the test on the service (Ctrl-C again to leave it running)'));
    sendStop();
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  try {
    await follow({
      stop: new AbortController().signal,
      finished: () => ENDED.includes(last),
      maxFailures: 12,
      open: (signal) =>
        c.send('GET', pathOf(ops.events, { test_id: testId }), {
          open: true,
          signal,
          headers: { Accept: 'text/event-stream' },
        }),
      onDisconnect: (reason, waitMs) =>
        note(err.yellow(`\nStatus stream lost (${reason}); again in ${(waitMs / 1000).toFixed(1)} s`)),
      onEvent: (event) => {
        if (event.event !== 'status') return;
        const s = event.data as LiveStatus;
        last = s.status;
        bar.update(s.progress, payload(s));
        if (stoppedHere) sendStop();
      },
    });
  } finally {
    bar.stop();
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
  return { status: last, stoppedHere };
}
