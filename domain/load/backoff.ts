// How long a virtual user rests after a connection error (its attempt failed before the request was
// written: refused, reset or timed out while connecting, a TLS or DNS failure, the SSRF guard) before
// it tries again: 100 ms, doubling with each error in a row up to 1 s, each wait drawn within ±20 %
// of that so users that failed together do not come back together; an answered request starts it over.
// Without it a user retries the instant its attempt fails: two users made 22,000 attempts a second
// against a closed port. With it a dead target sees about one attempt a second per user.

export const BACKOFF_FIRST_MS = 100;
export const BACKOFF_MAX_MS = 1000;
/** Each wait is within this share of its nominal value, either way. */
export const BACKOFF_JITTER = 0.2;

export class ConnectBackoff {
  private inARow = 0;
  private readonly random: () => number;

  /** `random` in [0, 1) (Math.random; a test gives its own). */
  constructor(random: () => number = Math.random) {
    this.random = random;
  }

  /** A connection error: the rest before the next attempt, ms. */
  next(): number {
    const nominal = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.inARow);
    if (nominal < BACKOFF_MAX_MS) this.inARow += 1;
    return Math.round(nominal * (1 - BACKOFF_JITTER + 2 * BACKOFF_JITTER * this.random()));
  }

  /** A request the target got (answered, or failed after it was sent): the next error starts over. */
  reset(): void {
    this.inARow = 0;
  }
}

/**
 * The rests of a shard's users (closed model) or connections (open model), each keyed by its own
 * backoff: every rest ends by the end of the test window (`leftMs`), and all can be cancelled at once.
 */
export class Rests<K> {
  private readonly backoffs = new Map<K, ConnectBackoff>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly leftMs: () => number;
  private readonly random: () => number;

  constructor(leftMs: () => number, random: () => number = Math.random) {
    this.leftMs = leftMs;
    this.random = random;
  }

  /**
   * After `key`'s attempt: true when the target got the request (its backoff starts over, the caller
   * goes on); false after a connection error, `then` running once its rest is over.
   */
  settle(key: K, reached: boolean, then: () => void): boolean {
    const backoff = this.backoffs.get(key) ?? new ConnectBackoff(this.random);
    this.backoffs.set(key, backoff);
    if (reached) {
      backoff.reset();
      return true;
    }
    // A rest that reaches the window's end wakes just past it (timers run on whole milliseconds, up to
    // one early against the test's clock): the user then ends rather than making one more attempt.
    const rest = backoff.next();
    const left = Math.max(0, this.leftMs());
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        then();
      },
      rest < left ? rest : Math.ceil(left) + 1,
    );
    this.timers.add(timer);
    return false;
  }

  /** Ends every rest without running what was to follow it: how many there were. */
  cancel(): number {
    const n = this.timers.size;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    return n;
  }
}
