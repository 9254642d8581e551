// Group commit for webhook captures. Each capture waits until its row is committed (the 2xx it
// answers means "stored"), but captures arriving together share one INSERT: while a batch is being
// written, the next one gathers. At low load a batch is one row; under load it grows, and the
// per-row cost of a round trip and a commit falls with it.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { insertCaptures, type CaptureRecord } from './webhooks.ts';

interface Pending {
  record: CaptureRecord;
  resolve: (stored: boolean) => void;
  reject: (err: unknown) => void;
}

export interface CaptureWriterOptions {
  /** Captured requests kept per webhook; older ones are dropped. */
  keepPerWebhook: number;
  /** Rows per INSERT at most. */
  maxBatch?: number;
  /** Batches written at the same time (one per database connection it may use). */
  maxConcurrent?: number;
}

export class CaptureWriter {
  readonly #db: Kysely<Database>;
  readonly #keep: number;
  readonly #maxBatch: number;
  readonly #maxConcurrent: number;
  #queue: Pending[] = [];
  #inFlight = 0;
  #scheduled = false;
  #idle: Array<() => void> = [];

  constructor(db: Kysely<Database>, options: CaptureWriterOptions) {
    this.#db = db;
    this.#keep = options.keepPerWebhook;
    this.#maxBatch = options.maxBatch ?? 1000;
    this.#maxConcurrent = options.maxConcurrent ?? 2;
  }

  /** Resolves true once stored, false when the webhook does not exist. */
  write(record: CaptureRecord): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ record, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // Let the captures parsed in this turn of the event loop join the same batch.
        setImmediate(() => {
          this.#scheduled = false;
          this.#pump();
        });
      }
    });
  }

  /** Resolves when everything written so far is committed. */
  drain(): Promise<void> {
    if (this.#queue.length === 0 && this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #pump(): void {
    while (this.#inFlight < this.#maxConcurrent && this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      this.#inFlight += 1;
      insertCaptures(this.#db, batch.map((p) => p.record), this.#keep)
        .then(
          (stored) => batch.forEach((p) => p.resolve(stored.has(p.record.webhookId))),
          (err) => batch.forEach((p) => p.reject(err)),
        )
        .finally(() => {
          this.#inFlight -= 1;
          this.#pump();
          if (this.#queue.length === 0 && this.#inFlight === 0) this.#idle.splice(0).forEach((r) => r());
        });
    }
  }
}
