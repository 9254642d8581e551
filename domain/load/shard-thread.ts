// A load thread (threads.ts): runs the shard parts it is given, each a ShardGenerator on this
// thread's own event loop, and answers snapshots when asked. Messages:
//   in:  {op: 'start', id, plan} | {op: 'snapshot', id, seq, phases} | {op: 'stop', id}
//   out: {op: 'snapshot', id, seq, snapshot} | {op: 'done', id, snapshot} | {op: 'error', id, message}
import { parentPort, workerData } from 'node:worker_threads';
import { ShardGenerator } from './generator.ts';
import type { ShardPlan } from './shard.ts';
import { lowerThisThread } from './thread-priority.ts';

// How far below the main thread this thread runs (threads.ts: threadNice).
lowerThisThread(Number((workerData as { nice?: number } | null)?.nice ?? 0));

export type ThreadRequest =
  | { op: 'start'; id: number; plan: ShardPlan }
  | { op: 'snapshot'; id: number; seq: number; phases: boolean }
  | { op: 'stop'; id: number };

const port = parentPort!;
const running = new Map<number, ShardGenerator>();
/** Stops that came before their part had started. */
const stopped = new Set<number>();

port.on('message', (m: ThreadRequest) => {
  if (m.op === 'start') {
    void ShardGenerator.create(m.plan).then(
      (generator) => {
        running.set(m.id, generator);
        if (stopped.delete(m.id)) generator.stop();
        void generator.run().then(
          (snapshot) => {
            running.delete(m.id);
            port.postMessage({ op: 'done', id: m.id, snapshot });
          },
          (err: Error) => {
            running.delete(m.id);
            port.postMessage({ op: 'error', id: m.id, message: err.message });
          },
        );
      },
      (err: Error) => port.postMessage({ op: 'error', id: m.id, message: err.message }),
    );
  } else if (m.op === 'snapshot') {
    const generator = running.get(m.id);
    if (generator) port.postMessage({ op: 'snapshot', id: m.id, seq: m.seq, snapshot: generator.snapshot(m.phases) });
  } else {
    const generator = running.get(m.id);
    if (generator) generator.stop();
    else if (stopped.size < 10_000) stopped.add(m.id); // a stop for a part not started yet (or already ended: bounded)
  }
});
