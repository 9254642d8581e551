// A load thread (threads.ts): runs the shard parts it is given, each a ShardGenerator on this
// thread's own event loop, and reports each part's snapshot on the part's own clock, unasked: one at
// once, then from `report.firstAt` every `report.everyMs` (onClock), the phases' histograms in the
// rounds carriesPhases says. The main thread is woken once per report, not twice (an ask and an
// answer), and keeps no timer of its own for it. Messages:
//   in:  {op: 'start', id, plan, report, sent} | {op: 'stop', id}  (sent: the part's count of requests sent, shared)
//   out: {op: 'snapshot', id, round, snapshot} | {op: 'done', id, snapshot} | {op: 'error', id, message}
import { parentPort, workerData } from 'node:worker_threads';
import { ShardGenerator } from './generator.ts';
import type { ShardPlan } from './shard.ts';
import { carriesPhases, onClock, type ReportClock } from './metrics/report-clock.ts';
import { lowerThisThread } from '../../lib/threads/thread-priority.ts';

// How far below the main thread this thread runs (threads.ts: threadNice).
lowerThisThread(Number((workerData as { nice?: number } | null)?.nice ?? 0));

export type ThreadRequest =
  | { op: 'start'; id: number; plan: ShardPlan; report: ReportClock; sent: SharedArrayBuffer }
  | { op: 'stop'; id: number };

const port = parentPort!;
const running = new Map<number, ShardGenerator>();
/** Stops that came before their part had started. */
const stopped = new Set<number>();

/**
 * Reports `generator`'s snapshots on `clock` (with the phases in the rounds carriesPhases says);
 * the function that stops reporting.
 */
function reporting(id: number, generator: ShardGenerator, clock: ReportClock): () => void {
  let round = 0;
  return onClock(clock, () => {
    port.postMessage({ op: 'snapshot', id, round, snapshot: generator.snapshot(carriesPhases(round, clock)) });
    round += 1;
  });
}

port.on('message', (m: ThreadRequest) => {
  if (m.op === 'start') {
    void ShardGenerator.create(m.plan, new Uint32Array(m.sent)).then(
      (generator) => {
        running.set(m.id, generator);
        if (stopped.delete(m.id)) generator.stop();
        const quiet = reporting(m.id, generator, m.report);
        void generator.run().then(
          (snapshot) => {
            quiet();
            running.delete(m.id);
            port.postMessage({ op: 'done', id: m.id, snapshot });
          },
          (err: Error) => {
            quiet();
            running.delete(m.id);
            port.postMessage({ op: 'error', id: m.id, message: err.message });
          },
        );
      },
      (err: Error) => port.postMessage({ op: 'error', id: m.id, message: err.message }),
    );
  } else {
    const generator = running.get(m.id);
    if (generator) generator.stop();
    else if (stopped.size < 10_000) stopped.add(m.id); // a stop for a part not started yet (or already ended: bounded)
  }
});
