// A thread of the capture diffs (domain/webhooks/capture-diff-threads.ts, served by lib/threads/pool-thread.ts): diffs
// two captures' bodies, one pair at a time.
import { type BodySide, bodyDiff } from './capture-diff.ts';
import { serveTasks } from '../../lib/threads/pool-thread.ts';

/** What the pool asks: the diff of two bodies. */
export interface DiffTask {
  a: BodySide;
  b: BodySide;
}

// Each diff answered as JSON text: one string to copy to the event loop's thread, not a graph of objects.
serveTasks(({ a, b }: DiffTask) => JSON.stringify(bodyDiff(a, b)));
