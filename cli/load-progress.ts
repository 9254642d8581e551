// Follows a running load test on its status stream until it ends, with one live progress line on
// stderr (cli-progress: redrawn in place on a terminal, a line every few seconds in CI logs). A
// dropped stream is opened again; Ctrl-C stops the test on the service and waits for its end.
import { SingleBar } from 'cli-progress';
import { loadTestOperations as ops } from '../api/schemas/load-tests.ts';
import { pathOf, type Client } from './client.ts';
import { ApiError } from './errors.ts';
import { note, err } from './output.ts';
import { serverEvents } from './sse.ts';

interface LiveStatus {
  status: string;
  progress: number;
  metrics: { total_requests: number; throughput: number; error_rate: number; p95_response_time?: number };
  started_at: string | null;
  estimated_completion: string | null;
  thresholds?: Array<{ pass: boolean }>;
  config: { concurrent_users?: number; test_duration?: number };
}

const ENDED = ['completed', 'stopped', 'failed'];

function payload(s: LiveStatus) {
  const started = s.started_at ? Date.parse(s.started_at) : null;
  const total = s.config.test_duration ?? (started && s.estimated_completion ? Math.round((Date.parse(s.estimated_completion) - started) / 1000) : 0);
  const elapsed = started ? Math.min(total, Math.max(0, Math.round((Date.now() - started) / 1000))) : 0;
  const passing = s.thresholds ? `${s.thresholds.filter((t) => t.pass).length}/${s.thresholds.length} passing` : 'none';
  return { state: s.status.padEnd(7), elapsed_s: elapsed, total_s: total, users: s.config.concurrent_users ?? '?', rps: s.metrics.throughput, p95: `${s.metrics.p95_response_time ?? 0} ms`, errors: `${s.metrics.error_rate}%`, thr: passing };
}

export async function followTest(c: Client, testId: string): Promise<{ status: string; stoppedHere: boolean }> {
  const bar = new SingleBar({
    stream: process.stderr,
    format: '{state} {bar} {elapsed_s}/{total_s} s | {users} users | {rps} req/s | p95 {p95} | errors {errors} | thresholds {thr}',
    barsize: 20,
    hideCursor: true,
    noTTYOutput: true,
    notTTYSchedule: 5000,
    barCompleteChar: '=',
    barIncompleteChar: '-',
  });
  bar.start(100, 0, { state: 'pending', elapsed_s: 0, total_s: 0, users: '?', rps: 0, p95: '0 ms', errors: '0%', thr: 'none' });
  const stop = new AbortController();
  let stoppedHere = false;
  const onSignal = () => {
    if (stoppedHere) process.exit(1); // a second Ctrl-C: leave now
    stoppedHere = true;
    note(err.yellow('\nStopping the test on the service (Ctrl-C again to leave it running)'));
    c.call('POST', pathOf(ops.stop, { test_id: testId })).catch((e: Error) => note(err.red(`Stopping failed: ${e.message}`)));
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  let last = 'pending';
  try {
    for (let backoff = 500; !ENDED.includes(last); backoff = Math.min(backoff * 2, 10_000)) {
      try {
        const res = await c.send('GET', pathOf(ops.events, { test_id: testId }), { open: true, signal: stop.signal, headers: { Accept: 'text/event-stream' } });
        for await (const event of serverEvents(res)) {
          if (event.event !== 'status') continue;
          backoff = 500;
          const s = event.data as LiveStatus;
          last = s.status;
          bar.update(s.progress, payload(s));
        }
      } catch (e) {
        if (e instanceof ApiError && e.status < 500 && e.status !== 429) throw e;
      }
      if (!ENDED.includes(last)) await new Promise((r) => setTimeout(r, backoff));
    }
  } finally {
    bar.stop();
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
  return { status: last, stoppedHere };
}
