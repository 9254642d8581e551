// A load test's remote-write outputs (docs/load-testing.md "Outputs"), sent from the workflow's side:
// one sender per test, whatever its shards. While the test runs, each output gets the merged figures
// every interval_seconds; after the results are stored, once more from the same merge as the results.
// Each write also carries its interval's figures: those of the requests sent in the seconds since the
// output's previous write (the last write: in the test's last interval_seconds, now with every answer).
// Each write goes through the SSRF guard and is tried up to three times (a network failure, a 5xx or
// a 429; never another 4xx, as the spec says); a write that still fails is counted with its reason
// in the output's state (load_tests.outputs, shown in status and results), and never fails the test.
// One writer per test at a time (the workflow starts the last write once the live sender has
// stopped, and never retries it), so the state is read once and written whole.
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import type { Kysely } from 'kysely';
import { readShardSeconds, readShardSnapshots } from '../../db/load/load-test-shards.ts';
import { readLoadOutputs, recordLoadOutputs } from '../../db/load/load-tests.ts';
import type { Database } from '../../db/schema.ts';
import { intervalSeries, outputSeries, windowRow } from '../../domain/load/metrics/outputs.ts';
import { mergeSeconds, mergeSending } from '../../domain/load/metrics/per-second.ts';
import { settledSeconds } from '../../domain/load/metrics/series.ts';
import { usersAt, type UserProfile } from '../../domain/load/profile.ts';
import type { LoadOutputState, RemoteWriteTarget } from '../../lib/jobs/load-outputs.ts';
import { createGuardedFetch, type GuardedFetch } from '../../lib/net/guarded-fetch.ts';
import { RemoteWriteRefused, remoteWrite, type RemoteWriteSeries } from '../../lib/prometheus-remote-write.ts';

/** Tries of one write, and the pause before each retry. */
const WRITE_TRIES = 3;
const RETRY_PAUSE_MS = 500;
/** How long a receiver has to take one write. */
const WRITE_TIMEOUT_MS = 5000;
/** Outputs whose writes fall due this close together share one reading of the shards' figures. */
const SHARED_READ_MS = 500;

/** One reading of the shards' figures: the series of the test so far, and the seconds it has (of its load's start). */
interface Reading {
  stamp: number;
  series: RemoteWriteSeries[];
  /** A running test's seconds before the one under way; an ended one's every second sent in. */
  seconds: number;
  /**
   * A running test's shard reports as read (which seconds are settled: domain/load/metrics/series.ts); none once it
   * ended.
   */
  rows: Array<{ shard: number; snapshot: { takenAt: number; shards?: number } }>;
}

/**
 * The longest interval a write sends (after a receiver that refused for a while): a minute, or the output's interval.
 */
const MAX_WINDOW_SECONDS = 60;

export interface LoadOutputsInput {
  testId: string;
  outputs: RemoteWriteTarget[];
  /** The test's target (its host is the `target_host` label) and tags (labels of their own). */
  targetUrl: string;
  tags: Record<string, string>;
  profile: UserProfile;
  startAt: number;
  endAt: number;
  /** false: every interval while the test runs; true: once, after the results are stored. */
  final: boolean;
}

export function createLoadOutputActivities(deps: { db: Kysely<Database>; allow: readonly string[] }) {
  const fetch: GuardedFetch = createGuardedFetch({
    allow: deps.allow,
    timeoutMs: WRITE_TIMEOUT_MS,
    maxBytes: 64 * 1024,
    onOversize: 'truncate',
    followRedirects: false,
  });

  /**
   * One write to one output, tried WRITE_TRIES times; its state says how it went (and so does its answer: taken or
   * not).
   */
  async function write(output: RemoteWriteTarget, series: RemoteWriteSeries[], state: LoadOutputState) {
    let reason = '';
    for (let attempt = 1; attempt <= WRITE_TRIES; attempt++) {
      try {
        await remoteWrite(fetch, output.url, series, output.headers);
        state.writes += 1;
        state.last_write_at = new Date().toISOString();
        return true;
      } catch (err) {
        reason = (err as Error).message;
        if (err instanceof RemoteWriteRefused && !err.retryable) break;
        if (attempt < WRITE_TRIES) await new Promise((r) => setTimeout(r, RETRY_PAUSE_MS * attempt));
      }
    }
    state.errors += 1;
    state.last_error = reason.slice(0, 500);
    return false;
  }

  return {
    async sendLoadOutputs(input: LoadOutputsInput): Promise<void> {
      const ctx = Context.current();
      const labels = { ...input.tags, test_id: input.testId, target_host: new URL(input.targetUrl).host };
      const stored = (await readLoadOutputs(deps.db, input.testId)) ?? [];
      const states = new Map(
        input.outputs.map((o) => [
          o.index,
          stored[o.index] ?? { writes: 0, errors: 0, last_error: null, last_write_at: null },
        ]),
      );
      const save = () =>
        recordLoadOutputs(
          deps.db,
          input.testId,
          Array.from({ length: Math.max(...input.outputs.map((o) => o.index)) + 1 }, (_, i) => states.get(i) ?? null),
        );
      // The shards' figures read once for the outputs due together; never stamped before a write already
      // made (the last write may run on another worker, whose clock may be behind).
      let shared: { at: number; reading: Promise<Reading> } | null = null;
      const lastWrite = Math.max(0, ...[...states.values()].map((st) => Date.parse(st.last_write_at ?? '') || 0));
      const readNow = (final: boolean) => {
        const now = Date.now();
        if (shared && now - shared.at < SHARED_READ_MS) return shared.reading;
        const stamp = Math.max(now, lastWrite + 1);
        const reading = readShardSnapshots(deps.db, input.testId).then((rows) => ({
          stamp,
          rows: final ? [] : rows,
          series: outputSeries(
            rows,
            labels,
            final ? 0 : usersAt(input.profile, now - input.startAt),
            stamp,
            final ? undefined : now,
          ),
          seconds: final
            ? (mergeSending(rows.map((r) => r.snapshot.sending))?.last ?? -1) + 1
            : Math.floor((now - input.startAt) / 1000),
        }));
        shared = { at: now, reading };
        return reading;
      };
      /**
       * A write's series: the reading's, and those of its interval, the seconds from `from` to the
       * reading's, while the test runs only those settled (every request sent in them answered, or past
       * the longest an answer may take): a slow answer is in the interval of the second it was sent in,
       * never left out of every one. `to`: where the interval ended.
       */
      const seriesOf = async (reading: Reading, from: number) => {
        if (reading.seconds <= from) return { series: reading.series, to: from };
        const reports = await readShardSeconds(deps.db, input.testId, from);
        const to = input.final
          ? reading.seconds
          : Math.min(reading.seconds, from + settledSeconds(mergeSeconds(reports), from, reading.rows, input.startAt));
        if (to <= from) return { series: reading.series, to: from };
        const window = windowRow(reports, from, to);
        return { series: [...reading.series, ...intervalSeries(window, labels, reading.stamp)], to };
      };
      /**
       * One output's writes every interval until the test's end or a cancellation (each on its own: a slow one holds
       * back no other).
       */
      async function live(output: RemoteWriteTarget) {
        let nextAt = input.startAt + output.intervalSeconds * 1000;
        // Where the next interval starts: after the last one the receiver took (a sender that Temporal
        // started again knows none: its first interval is one interval_seconds long, as the first of all).
        let from: number | null = null;
        while (!ctx.cancellationSignal.aborted && Date.now() < input.endAt) {
          const wait = Math.max(0, Math.min(nextAt, input.endAt) - Date.now());
          await sleep(wait, undefined, { signal: ctx.cancellationSignal }).catch(() => {});
          if (ctx.cancellationSignal.aborted || Date.now() < nextAt) continue;
          // On its schedule; after a write slower than the interval, an interval from now.
          nextAt = Math.max(nextAt + output.intervalSeconds * 1000, Date.now() + 1000);
          try {
            const reading = await readNow(false);
            // After a receiver that refused for a while, at most the last minute: one figure for an
            // hour would mean little, and merging it would hold this worker's loop (its shards' heartbeats).
            const earliest = reading.seconds - Math.max(output.intervalSeconds, MAX_WINDOW_SECONDS);
            const start = Math.max(
              0,
              from === null ? reading.seconds - output.intervalSeconds : Math.max(from, earliest),
            );
            const { series, to } = await seriesOf(reading, start);
            if (await write(output, series, states.get(output.index)!)) from = Math.max(start, to);
            await save();
          } catch {
            // The database away (the figures or the state not read or stored): this write is skipped,
            // the next one tries again; the receiver is not at fault, so nothing is counted against it.
          }
        }
      }
      // Heard while a slow receiver holds a write (three tries of up to 5 s).
      const beat = setInterval(() => ctx.heartbeat(), 1000);
      try {
        if (input.final) {
          // The test's last interval again, with the answers that came after the live sender's last write.
          const reading = await readNow(true);
          await Promise.all(
            input.outputs.map(async (o) =>
              write(
                o,
                (await seriesOf(reading, Math.max(0, reading.seconds - o.intervalSeconds))).series,
                states.get(o.index)!,
              ),
            ),
          );
          await save();
        } else await Promise.all(input.outputs.map(live));
      } finally {
        clearInterval(beat);
      }
    },
  };
}
export type LoadOutputActivities = ReturnType<typeof createLoadOutputActivities>;
