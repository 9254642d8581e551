// Group commit: items written one by one, each caller waiting for its own outcome, share one write
// with the others that came while the writes before were under way (or within `waitMs` of the first:
// without it, an item at low load is written at once, alone). Under load the writes grow, and the
// per-item cost of a round trip and a commit falls with them. `maxConcurrent` writes at once (one
// per database connection it may use), each of at most `maxItems` items and `maxWeight` of their
// weight (a write always takes one). A failed write rejects each of its items' callers (or, when
// `alone` says so of its error, is tried again in halves down to single items, so that one bad item
// fails only its own caller); the next writes still go.

export interface GroupCommitOptions<T> {
  maxItems: number;
  maxConcurrent: number;
  /** An item's weight (bytes, say), and a write's most; unbounded without them. */
  weight?: (item: T) => number;
  maxWeight?: number;
  /**
   * How long the first item waits for others to join its write (none: only those submitted in the
   * same turn of the event loop, or while every write allowed is under way, join it).
   */
  waitMs?: number;
  /**
   * Whether a failed write of several items is tried again in halves, down to an item at a time (one
   * bad item must not fail the others): for an error of the data, say, not for an outage, which
   * would fail each again.
   */
  alone?: (err: unknown) => boolean;
}

/** A write answered for fewer or more items than it took: a bug of the write, never tried again. */
class MissingOutcomes extends Error {
  constructor(outcomes: number, items: number) {
    super(`group commit: ${outcomes} outcomes for ${items} items`);
  }
}

interface Pending<T, R> {
  item: T;
  /** Its weight, taken once when it is submitted. */
  weight: number;
  resolve: (outcome: R) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit<T, R> {
  readonly #write: (items: T[]) => Promise<R[]>;
  readonly #options: GroupCommitOptions<T>;
  #queue: Array<Pending<T, R>> = [];
  #inFlight = 0;
  #scheduled = false;
  #idle: Array<() => void> = [];

  /** `write` stores the items and answers each one's outcome, in their order. */
  constructor(write: (items: T[]) => Promise<R[]>, options: GroupCommitOptions<T>) {
    this.#write = write;
    this.#options = options;
  }

  /** Resolves with the item's outcome once its write is done. */
  submit(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      // Weighed here, in its caller's turn: a weight that throws fails this item only, never a write
      // started from a timer.
      const weight = this.#options.weight ? this.#options.weight(item) : 0;
      this.#queue.push({ item, weight, resolve, reject });
      if (this.#queue.length >= this.#options.maxItems)
        this.#pump(); // a full write goes at once
      else if (!this.#scheduled) {
        this.#scheduled = true;
        // The items submitted in this turn of the event loop (or within waitMs) join the same write.
        const go = () => {
          this.#scheduled = false;
          this.#pump();
        };
        if (this.#options.waitMs) setTimeout(go, this.#options.waitMs);
        else setImmediate(go);
      }
    });
  }

  /** Resolves when every item submitted so far is written (or its write failed). */
  async drain(): Promise<void> {
    if (this.#queue.length > 0 || this.#inFlight > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  #pump(): void {
    while (this.#inFlight < this.#options.maxConcurrent && this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#batchLength());
      this.#inFlight += 1;
      // The slot is given back, and the next write started, as soon as this one is done, before its
      // callers are answered: answering them is work of this thread, during which the next write can
      // already be under way rather than wait for it.
      let freed = false;
      const free = () => {
        if (freed) return;
        freed = true;
        this.#inFlight -= 1;
        this.#pump();
      };
      this.#run(batch, free)
        .catch((err) => this.#retried(batch, err))
        .finally(() => {
          free();
          if (this.#queue.length === 0 && this.#inFlight === 0) for (const r of this.#idle.splice(0)) r();
        });
    }
  }

  /**
   * A failed write's items: their callers rejected, or, when `alone` says so of its error, written
   * again in halves, each half that fails halved again: one bad item among n is found in about
   * 2·log2(n) writes (not n, one after the other, while the write's slot is held), and the good
   * ones are written together.
   */
  async #retried(batch: Array<Pending<T, R>>, err: unknown): Promise<void> {
    if (batch.length === 1 || err instanceof MissingOutcomes || !this.#alone(err)) {
      for (const p of batch) p.reject(err);
      return;
    }
    const half = Math.ceil(batch.length / 2);
    for (const part of [batch.slice(0, half), batch.slice(half)])
      await this.#run(part).catch((again) => this.#retried(part, again));
  }

  #alone(err: unknown): boolean {
    try {
      return this.#options.alone?.(err) ?? false;
    } catch {
      return false;
    }
  }

  /**
   * Writes the items and answers each caller, once `done` is told that the write is (when given);
   * rejects when the write fails (no caller answered).
   */
  async #run(batch: Array<Pending<T, R>>, done?: () => void): Promise<void> {
    const outcomes = await this.#write(batch.map((p) => p.item));
    if (outcomes.length !== batch.length) throw new MissingOutcomes(outcomes.length, batch.length);
    done?.();
    for (const [i, p] of batch.entries()) p.resolve(outcomes[i]!);
  }

  /** How many queued items the next write takes. */
  #batchLength(): number {
    const { maxItems, maxWeight = Number.POSITIVE_INFINITY } = this.#options;
    let total = 0;
    let n = 0;
    while (n < this.#queue.length && n < maxItems) {
      total += this.#queue[n]!.weight;
      if (n > 0 && total > maxWeight) break;
      n += 1;
    }
    return n;
  }
}
