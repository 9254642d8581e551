// Capture diffs off the event loop: the bodies' part of a diff (domain/webhooks/capture-diff.ts: up to a second
// over two 1 MiB bodies, measured in docs/webhooks.md) runs on a pool of lib/threads/thread-pool.ts whose
// threads (capture-diff-thread.ts) diff one pair at a time within a budget of time by the clock and of
// heap: past either the diff is its owner's error (504). What waits is bounded per owner and in all:
// past a bound a diff is refused at once (503). Method, path, query and headers are diffed here: they
// are small.
import {
  type BodyDiff,
  type BodySide,
  type CaptureDiff,
  DEFAULT_IGNORED_HEADERS,
  type DiffSide,
  diffCaptures,
} from './capture-diff.ts';
import type { DiffTask } from './capture-diff-thread.ts';
import { AppError, UnavailableError } from '../../lib/errors.ts';
import { type Outcome, type Refusal, ThreadPool, type ThreadPoolOptions } from '../../lib/threads/thread-pool.ts';

/** No bound of bytes: a diff waiting holds the bodies its request read anyway (the same strings), no copy. */
export type DiffThreadOptions = Partial<Omit<ThreadPoolOptions, 'maxQueuedBytes'>>;

/**
 * Two 1 MiB bodies take at most about a second and a half (half a million short lines each; JSON
 * with 90,000 names), five times that on a machine busy with other work: the budget is a backstop
 * past those. A diff's heap stays under 100 MB (two 1 MiB bodies parsed, or their lines).
 */
export const DIFF_THREAD_DEFAULTS = {
  threads: 2,
  budgetMs: 10_000,
  heapMb: 256,
  maxQueued: 64,
  maxQueuedPerOwner: 4,
  nice: 10,
} satisfies Required<DiffThreadOptions>;

/** Why a diff has no answer: past its time, or its heap (the owner's error, 504). */
export class DiffTooCostlyError extends AppError {
  override name = 'DiffTooCostlyError';
  constructor(message: string) {
    super('timeout', message);
  }
}

const STOPPED = 'The capture diffs stopped: try again';

const refusal = (why: Refusal) =>
  new UnavailableError(
    why === 'stopped'
      ? STOPPED
      : `Too many capture diffs waiting${why === 'owner' ? ' of yours' : ''}: try again in a few seconds`,
  );

const bytes = (s: BodySide) => (s.body === null ? 0 : Buffer.byteLength(s.body, s.bodyEncoding));

export class CaptureDiffThreads extends ThreadPool<DiffTask, string> {
  constructor(options: DiffThreadOptions = {}) {
    super(
      { ...DIFF_THREAD_DEFAULTS, maxQueuedBytes: Number.POSITIVE_INFINITY, ...options },
      // The clock: the budget is a backstop far past what a diff takes, not a measure of its work.
      // An idle thread ends after a while: a process nobody asks for diffs keeps none.
      { module: new URL('./capture-diff-thread.ts', import.meta.url), clock: 'wall', idleMs: 5 * 60_000 },
    );
  }

  /**
   * How capture `b` differs from capture `a` (as diffCaptures answers), the bodies diffed on a thread
   * for `owner`: 503 when the queues are full, 504 past the thread's time or heap.
   */
  async diff(
    owner: string,
    a: DiffSide,
    b: DiffSide,
    ignore: readonly string[] = DEFAULT_IGNORED_HEADERS,
  ): Promise<CaptureDiff> {
    const task: DiffTask = {
      a: { body: a.body, bodyEncoding: a.bodyEncoding },
      b: { body: b.body, bodyEncoding: b.bodyEncoding },
    };
    const run = this.run(owner, task);
    if (typeof run === 'string') throw refusal(run);
    const outcome = await run;
    if (!outcome.ok) throw this.#failure(outcome, task);
    return diffCaptures(a, b, ignore, JSON.parse(outcome.answer) as BodyDiff);
  }

  #failure({ failed, error }: Extract<Outcome<string>, { ok: false }>, task: DiffTask): Error {
    const sizes = `${bytes(task.a)} and ${bytes(task.b)} bytes`;
    const reason = error?.message ?? 'no reason given';
    switch (failed) {
      case 'time':
      case 'busy': // of a budget of CPU time only: not of this pool's
        return new DiffTooCostlyError(
          `Comparing the bodies (${sizes}) took more than ${this.options.budgetMs / 1000} s: not compared`,
        );
      case 'memory':
        return new DiffTooCostlyError(
          `Comparing the bodies (${sizes}) needed more than ${this.options.heapMb} MB: not compared`,
        );
      case 'stopped':
        return new UnavailableError(STOPPED);
      case 'crashed':
        return new Error(`The capture diff's thread ended: ${reason}`);
      case 'unstarted':
        return new Error(`The capture diff's thread did not start: ${reason}`);
    }
  }
}
