// bench:shard-scale's simulated shards' own work, on threads of their own as a real shard's is on its
// load threads (domain/load/threads.ts, at their lower priority): each second, histograms fed as if
// `samples` answers had come, and the shard's snapshot built from them and reported on the shard's
// clock, unasked, as a load thread reports (domain/load/metrics/report-clock.ts: onClock). The worker's
// event loop keeps what a load worker's keeps: the heartbeats and storing the reports. Messages:
//   in:  {op: 'start', key, startAt, clock} | {op: 'end', key}
//   out: {key, due, snapshot, final}
import type { ShardSnapshot } from '../../lib/load/snapshot.ts';
import { parentPort, workerData } from 'node:worker_threads';
import { encodeHistogram, newHistogram } from '../../domain/load/metrics/histogram.ts';
import { PerSecondCounts } from '../../domain/load/metrics/per-second.ts';
import { PhaseHistograms } from '../../domain/load/phases.ts';
import { carriesPhases, onClock, type ReportClock } from '../../domain/load/metrics/report-clock.ts';
import { lowerThisThread } from '../../lib/threads/thread-priority.ts';

export type BuildRequest =
  | { op: 'start'; key: string; startAt: number; clock: ReportClock }
  | { op: 'end'; key: string };
export interface Built {
  key: string;
  /** When the report was due (its lateness is counted from here). */
  due: number;
  snapshot: ShardSnapshot;
  /** The shard's last (asked for with 'end'). */
  final: boolean;
}

const { samples, nice } = workerData as { samples: number; nice: number };
lowerThisThread(nice);

/** A simulated shard attempt: what it counted so far. */
function simulated(startAt: number) {
  const histogram = newHistogram();
  const phases = new PhaseHistograms();
  const perSecond = new PerSecondCounts();
  const stats = { total: 0, successful: 0, failed: 0, latencySumUs: 0 };
  return (withPhases: boolean): ShardSnapshot => {
    const second = Math.floor((Date.now() - startAt) / 1000);
    for (let i = 0; i < samples; i++) {
      const us = Math.round(300 + 2000 * -Math.log(1 - Math.random())); // a long-tailed latency, 0.3 ms and up
      const times = { dns: 0, connect: i === 0 ? 150 : 0, tls: 0, ttfb: us - 40, transfer: 40 };
      histogram.recordValue(us);
      phases.record(times);
      perSecond.countSent(second);
      perSecond.countAnswer(second, us, false, 200, times);
      stats.total += 1;
      stats.successful += 1;
      stats.latencySumUs += us;
    }
    return {
      sending: perSecond.sent(),
      newSeconds: perSecond.drain(),
      ...stats,
      bytesSent: stats.total * 80,
      bytesReceived: stats.total * 250,
      histogram: encodeHistogram(histogram),
      statusCodes: { '200': stats.total },
      errors: {},
      inFlight: 0,
      dropped: 0,
      firstSentAt: startAt,
      takenAt: Date.now(),
      ...(withPhases ? { phases: phases.snapshot() } : {}),
    };
  };
}

/** Each running shard: its snapshots, and how to stop reporting them. */
const shards = new Map<string, { build: ReturnType<typeof simulated>; quiet: () => void }>();
const port = parentPort!;
port.on('message', (m: BuildRequest) => {
  if (m.op === 'end') {
    const shard = shards.get(m.key);
    if (!shard) return;
    shard.quiet();
    shards.delete(m.key);
    port.postMessage({ key: m.key, due: Date.now(), snapshot: shard.build(true), final: true } satisfies Built);
    return;
  }
  const build = simulated(m.startAt);
  let round = 0;
  const quiet = onClock(m.clock, (due) => {
    const snapshot = build(carriesPhases(round, m.clock));
    round += 1;
    port.postMessage({ key: m.key, due, snapshot, final: false } satisfies Built);
  });
  shards.set(m.key, { build, quiet });
});
