// The thread's side of a pool of lib/threads/thread-pool.ts: a thread module calls `serveTasks` with what a
// task computes, and this answers the pool's tasks one at a time. The pool ends the thread when a task
// runs past its time, and Node when the thread runs past its heap: nothing here needs to stop itself.
// The thread runs below the API's own threads (nice), so a task in progress never takes a core from
// the event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThread, thisThreadId } from './thread-priority.ts';

/** What the pool gives a thread as it starts. */
export interface ThreadData {
  /** How far below the process's priority the thread runs (Linux). */
  nice: number;
}
/** What the pool asks: one task. */
export interface TaskMessage<T> {
  id: number;
  task: T;
}
/** What the thread answers: `ready` once (with its Linux thread id, when known), then each task's answer. */
export type ThreadMessage<A> = { ready: true; tid: number | null } | { id: number; answer: A };

/**
 * Answers the pool's tasks with `answer` (or the promise it gives), one at a time. `prepare` runs first,
 * at the thread's lowered priority and before the thread tells the pool it is ready: work of the thread's
 * own (a library's first run) that is not to be charged to the budget of whichever task comes first.
 */
export function serveTasks<T, A>(answer: (task: T) => A | Promise<A>, prepare?: () => void): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs on a thread of a pool (lib/threads/thread-pool.ts)');
  const tid = thisThreadId();
  lowerThread(tid, Number((workerData as Partial<ThreadData> | null)?.nice ?? 0));
  prepare?.();
  // An answer that is a promise is posted once it settles (the pool sends the next task only then); one
  // that fails ends the thread, as a throw does (thrown outside the promise: whatever Node is told to
  // do with a rejection nobody handles).
  port.on('message', ({ id, task }: TaskMessage<T>) => {
    const post = (a: A) => port.postMessage({ id, answer: a } satisfies ThreadMessage<A>);
    const a = answer(task);
    if (a instanceof Promise)
      a.then(post).catch((err: unknown) =>
        setImmediate(() => {
          throw err;
        }),
      );
    else post(a);
  });
  port.postMessage({ ready: true, tid } satisfies ThreadMessage<A>);
}
