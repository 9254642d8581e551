// What waits for a thread of a pool (lib/threads/thread-pool.ts): one queue per owner, owners served in turn
// (one task of each owner with work, then again), so that an owner whose tasks are slow holds at most
// their turn of the threads. Bounded in tasks per owner, in tasks of all owners and in bytes held:
// past a bound a task is refused at once, so that a flood costs its sender an error, never memory.

export interface QueueBounds {
  /** Tasks waiting, all owners together. */
  maxQueued: number;
  /** Tasks of one owner waiting. */
  maxQueuedPerOwner: number;
  /** Bytes the tasks waiting hold (their bodies), all owners together. */
  maxQueuedBytes: number;
}

/** Which bound a task would pass: its owner's queue, the tasks of all owners, or the bytes held. */
export type QueueFull = 'owner' | 'all' | 'bytes';

/** A task waiting, with whose it is and how many bytes it holds. */
export interface Queued {
  owner: string;
  bytes: number;
}

export class FairQueues<W extends Queued> {
  readonly #bounds: QueueBounds;
  /** Each owner's tasks waiting, owners in their turn's order (a Map keeps the order of insertion). */
  readonly #queues = new Map<string, W[]>();
  #size = 0;
  #bytes = 0;

  constructor(bounds: QueueBounds) {
    this.#bounds = bounds;
  }

  /** Tasks waiting, all owners together. */
  get size(): number {
    return this.#size;
  }

  /** How many more tasks of `owner` would be taken now (bytes aside). */
  room(owner: string): number {
    const mine = this.#queues.get(owner)?.length ?? 0;
    return Math.max(0, Math.min(this.#bounds.maxQueuedPerOwner - mine, this.#bounds.maxQueued - this.#size));
  }

  /** The bound a task of `owner` holding `bytes` would pass, or null: it would be taken. */
  full(owner: string, bytes: number): QueueFull | null {
    if ((this.#queues.get(owner)?.length ?? 0) >= this.#bounds.maxQueuedPerOwner) return 'owner';
    if (this.#size >= this.#bounds.maxQueued) return 'all';
    if (this.#bytes + bytes > this.#bounds.maxQueuedBytes) return 'bytes';
    return null;
  }

  /**
   * Adds `waiting` at the end of its owner's queue, or with `first` at its head: a task run again goes
   * before its owner's later ones. The bounds are the caller's to ask first (`full`).
   */
  add(waiting: W, first = false): void {
    const queue = this.#queues.get(waiting.owner);
    if (!queue) this.#queues.set(waiting.owner, [waiting]);
    else if (first) queue.unshift(waiting);
    else queue.push(waiting);
    this.#size += 1;
    this.#bytes += waiting.bytes;
  }

  /** The next task to run: the first owner's in the turn, who then goes to the turn's end. */
  next(): W | undefined {
    const first = this.#queues.entries().next();
    if (first.done) return undefined;
    const [owner, queue] = first.value;
    const waiting = queue.shift()!;
    this.#queues.delete(owner);
    if (queue.length > 0) this.#queues.set(owner, queue);
    this.#size -= 1;
    this.#bytes -= waiting.bytes;
    return waiting;
  }

  /** Every task waiting, taken out of the queues. */
  take(): W[] {
    const all = [...this.#queues.values()].flat();
    this.#queues.clear();
    this.#size = 0;
    this.#bytes = 0;
    return all;
  }
}
