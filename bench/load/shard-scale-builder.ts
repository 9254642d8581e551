// bench:shard-scale's simulated shards' own work, on threads of their own as a real shard's is on its
// load threads (domain/load/threads.ts, at their lower priority): each second, histograms fed as if
// `samples` answers had come, and the shard's snapshot built from them. The worker's event loop keeps
// what a load worker's keeps: the heartbeats and the reports. Messages:
//   in:  {op: 'build', key, seq, startAt, withPhases} | {op: 'forget', key}
//   out: {seq, snapshot}
import { parentPort, workerData } from 'node:worker_threads';
import { encodeHistogram, newHistogram } from '../../domain/load/histogram.ts';
import { PerSecondCounts } from '../../domain/load/per-second.ts';
import { PhaseHistograms } from '../../domain/load/phases.ts';
import type { ShardSnapshot } from '../../domain/load/shard.ts';
import { lowerThisThread } from '../../domain/load/thread-priority.ts';

export type BuildRequest =
  | { op: 'build'; key: string; seq: number; startAt: number; withPhases: boolean }
  | { op: 'forget'; key: string };
export interface Built {
  seq: number;
  snapshot: ShardSnapshot;
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

const shards = new Map<string, ReturnType<typeof simulated>>();
const port = parentPort!;
port.on('message', (m: BuildRequest) => {
  if (m.op === 'forget') {
    shards.delete(m.key);
    return;
  }
  const shard = shards.get(m.key) ?? simulated(m.startAt);
  shards.set(m.key, shard);
  const snapshot = shard(m.withPhases);
  port.postMessage({ seq: m.seq, snapshot } satisfies Built);
});
