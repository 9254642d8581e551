// A load test's remote-write outputs (docs/load-testing.md "Outputs"), sent from the workflow's side:
// one sender per test, whatever its shards. While the test runs, each output gets the merged figures
// every interval_seconds; after the results are stored, once more from the same merge as the results.
// Each write goes through the SSRF guard and is tried three times; a write that still fails is
// counted with its reason in the output's state (load_tests.outputs, shown in status and results),
// and never fails the test.
import { Context } from '@temporalio/activity';
import type { Kysely } from 'kysely';
import { readLoadOutputs, readShardSnapshots, recordLoadOutputs } from '../../db/load-tests.ts';
import type { Database } from '../../db/schema.ts';
import { outputSeries, usersAt, type UserProfile } from '../../domain/load/outputs.ts';
import type { LoadOutputState, RemoteWriteTarget } from '../../lib/jobs/load-outputs.ts';
import { createGuardedFetch, type GuardedFetch } from '../../lib/net/guarded-fetch.ts';
import { remoteWrite, type RemoteWriteSeries } from '../../lib/prometheus-remote-write.ts';

/** Tries of one write, and the pause before each retry. */
const WRITE_TRIES = 3;
const RETRY_PAUSE_MS = 500;
/** How long a receiver has to take one write. */
const WRITE_TIMEOUT_MS = 10_000;

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
    keepAlive: true,
  });

  /** One write to one output, tried WRITE_TRIES times; its state says how it went. */
  async function write(output: RemoteWriteTarget, series: RemoteWriteSeries[], state: LoadOutputState) {
    let reason = '';
    for (let attempt = 1; attempt <= WRITE_TRIES; attempt++) {
      try {
        await remoteWrite(fetch, output.url, series, output.headers);
        state.writes += 1;
        state.last_write_at = new Date().toISOString();
        return;
      } catch (err) {
        reason = (err as Error).message;
        if (attempt < WRITE_TRIES) await new Promise((r) => setTimeout(r, RETRY_PAUSE_MS * attempt));
      }
    }
    state.errors += 1;
    state.last_error = reason.slice(0, 500);
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
      const seriesNow = async (final: boolean) => {
        const now = Date.now();
        const rows = await readShardSnapshots(deps.db, input.testId);
        const vus = final ? 0 : usersAt(input.profile, now - input.startAt);
        return outputSeries(rows, labels, vus, now, final ? undefined : now);
      };
      /** One output's writes every interval until the test's end or a cancellation (each on its own: a slow one holds back no other). */
      async function live(output: RemoteWriteTarget) {
        let nextAt = input.startAt + output.intervalSeconds * 1000;
        while (!ctx.cancellationSignal.aborted && Date.now() < input.endAt) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, Math.max(0, Math.min(nextAt, input.endAt) - Date.now()));
            function done() {
              clearTimeout(timer);
              ctx.cancellationSignal.removeEventListener('abort', done);
              resolve();
            }
            ctx.cancellationSignal.addEventListener('abort', done);
          });
          if (ctx.cancellationSignal.aborted || Date.now() < nextAt) continue;
          // On its schedule; after a write slower than the interval, an interval from now.
          nextAt = Math.max(nextAt + output.intervalSeconds * 1000, Date.now() + 1000);
          await write(output, await seriesNow(false), states.get(output.index)!);
          await save();
        }
      }
      if (input.final) {
        const series = await seriesNow(true);
        await Promise.all(input.outputs.map((o) => write(o, series, states.get(o.index)!)));
        await save();
        return;
      }
      // Heard while a slow receiver holds a write (three tries of up to 10 s).
      const beat = setInterval(() => ctx.heartbeat(), 1000);
      try {
        await Promise.all(input.outputs.map(live));
      } finally {
        clearInterval(beat);
      }
    },
  };
}
export type LoadOutputActivities = ReturnType<typeof createLoadOutputActivities>;
