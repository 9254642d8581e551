// Group commit for webhook captures. Each capture waits until its row is committed (the 2xx it
// answers means "stored"), but captures arriving together share one INSERT: while a batch is being
// written, the next one gathers. At low load a batch is one row; under load it grows, and the
// per-row cost of a round trip and a commit falls with it.
//
// Trimming each webhook to the captures it keeps (its retention's count, else `keepPerWebhook`)
// happens off the answer path, once a webhook has had `trimEvery` new rows: between trims a webhook
// may hold a few rows more, which the listings never show (db/capture-retention.ts). Ages are the
// scheduled expiry's (workflows/webhooks.ts).
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { trimCaptures } from './capture-retention.ts';
import { insertCaptures, type CaptureRecord } from './webhooks.ts';

interface Pending {
  record: CaptureRecord;
  resolve: (stored: boolean) => void;
  reject: (err: unknown) => void;
}

export interface CaptureWriterOptions {
  /** Captured requests kept per webhook that sets no retention of its own; older ones are dropped. */
  keepPerWebhook: number;
  /**
   * New rows a webhook takes between two trims, at least; a webhook that keeps many is trimmed
   * after half its count (a trim walks the rows it keeps: trimming every few rows a webhook that
   * keeps thousands cost a hot webhook nine tenths of its throughput, measured).
   */
  trimEvery?: number;
  /** Rows per INSERT at most. */
  maxBatch?: number;
  /** Body bytes per INSERT at most (a batch always takes at least one capture). */
  maxBatchBytes?: number;
  /** Batches written at the same time (one per database connection it may use). */
  maxConcurrent?: number;
  onError?: (err: unknown) => void;
  /** Told how many captures each committed batch stored, for which webhooks (the metric, live streams) and which of them forward. */
  onStored?: (count: number, webhookIds: string[], forwarding: string[]) => void;
}

/** Above this many webhooks with untrimmed rows counted, the counts restart (memory stays bounded). */
const MAX_TRACKED_WEBHOOKS = 100_000;

export class CaptureWriter {
  readonly #db: Kysely<Database>;
  readonly #keep: number;
  readonly #trimEvery: number;
  readonly #maxBatch: number;
  readonly #maxBatchBytes: number;
  readonly #maxConcurrent: number;
  readonly #onError: (err: unknown) => void;
  readonly #onStored: (count: number, webhookIds: string[], forwarding: string[]) => void;
  #queue: Pending[] = [];
  #inFlight = 0;
  #scheduled = false;
  #idle: Array<() => void> = [];
  /** Rows added per webhook since its last trim. */
  readonly #untrimmed = new Map<number, number>();
  #toTrim = new Set<number>();
  #trimming: Promise<void> | null = null;

  constructor(db: Kysely<Database>, options: CaptureWriterOptions) {
    this.#db = db;
    this.#keep = options.keepPerWebhook;
    this.#trimEvery = options.trimEvery ?? 50;
    this.#maxBatch = options.maxBatch ?? 1000;
    this.#maxBatchBytes = options.maxBatchBytes ?? 16 * 1024 * 1024;
    this.#maxConcurrent = options.maxConcurrent ?? 4;
    this.#onError = options.onError ?? (() => {});
    this.#onStored = options.onStored ?? (() => {});
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

  /** Resolves when everything written so far is committed and trimmed. */
  async drain(): Promise<void> {
    if (this.#queue.length > 0 || this.#inFlight > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
    while (this.#trimming) await this.#trimming;
  }

  #pump(): void {
    while (this.#inFlight < this.#maxConcurrent && this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#batchLength());
      this.#inFlight += 1;
      insertCaptures(
        this.#db,
        batch.map((p) => p.record),
      )
        .then(
          (stored) => {
            for (const p of batch) p.resolve(stored.has(p.record.webhookId));
            let added = 0;
            const touched: string[] = [];
            const forwarding: string[] = [];
            for (const [webhookId, { added: n, forwarding: forwards }] of stored) {
              added += n;
              if (n > 0) touched.push(webhookId);
              if (n > 0 && forwards) forwarding.push(webhookId);
            }
            if (added > 0) this.#onStored(added, touched, forwarding);
            this.#countForTrim(stored.values());
          },
          (err) => {
            for (const p of batch) p.reject(err);
          },
        )
        .finally(() => {
          this.#inFlight -= 1;
          this.#pump();
          if (this.#queue.length === 0 && this.#inFlight === 0) for (const r of this.#idle.splice(0)) r();
        });
    }
  }

  /** How many queued captures the next batch takes: up to maxBatch rows and maxBatchBytes of bodies. */
  #batchLength(): number {
    let bytes = 0;
    let n = 0;
    while (n < this.#queue.length && n < this.#maxBatch) {
      bytes += this.#queue[n]!.record.bodySize;
      if (n > 0 && bytes > this.#maxBatchBytes) break;
      n += 1;
    }
    return n;
  }

  #countForTrim(stored: Iterable<{ ref: number; added: number; keep?: number | null }>): void {
    if (this.#untrimmed.size > MAX_TRACKED_WEBHOOKS) this.#untrimmed.clear();
    for (const { ref, added, keep } of stored) {
      const n = (this.#untrimmed.get(ref) ?? 0) + added;
      if (n >= Math.max(this.#trimEvery, Math.floor((keep ?? this.#keep) / 2))) {
        this.#untrimmed.delete(ref);
        this.#toTrim.add(ref);
      } else {
        this.#untrimmed.set(ref, n);
      }
    }
    this.#trim();
  }

  /** One trim at a time, covering every webhook that crossed its threshold meanwhile. */
  #trim(): void {
    if (this.#trimming || this.#toTrim.size === 0) return;
    const refs = [...this.#toTrim];
    this.#toTrim = new Set();
    this.#trimming = trimCaptures(this.#db, refs, this.#keep)
      .catch((err) => {
        for (const r of refs) this.#toTrim.add(r); // try again with the next batch
        this.#onError(err);
      })
      .finally(() => {
        this.#trimming = null;
        this.#trim();
      });
  }
}
