// At most `n` holders at once; the others wait their turn, first come first served. A waiter whose
// signal aborts leaves the line (take rejects with the signal's reason); a holder keeps its turn until
// it gives it back, whatever its signal says afterwards, so that work still stopping (a process being
// killed) still counts. (p-queue frees a running task's slot as soon as its signal aborts: the bound
// would then let a cancelled ffmpeg run beside a new one.)
export class Turns {
  #free: number;
  readonly #line: Array<() => void> = [];

  constructor(n: number) {
    if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`Turns: at least one at once, not ${n}`);
    this.#free = n;
  }

  /** How many wait for a turn now. */
  get waiting(): number {
    return this.#line.length;
  }

  /** Waits for a turn; resolves with the function that gives it back (once: later calls do nothing). */
  async take(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#free > 0) this.#free -= 1;
    else
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          this.#line.splice(this.#line.indexOf(go), 1);
          reject(signal?.reason);
        };
        this.#line.push(go);
        signal?.addEventListener('abort', leave, { once: true });
      });
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const next = this.#line.shift();
      if (next) next();
      else this.#free += 1;
    };
  }
}
