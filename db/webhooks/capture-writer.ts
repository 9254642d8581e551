// Group commit for webhook captures. Each capture waits until its row is committed (the 2xx it
// answers means "stored"), but captures arriving together share one INSERT: while a batch is being
// written, the next one gathers. At low load a batch is one row; under load it grows, and the
// per-row cost of a round trip and a commit falls with it.
//
// Trimming each webhook to the captures it keeps (its retention's count, else `keepPerWebhook`)
// happens off the answer path, once a webhook has had `trimEvery` new rows: between trims a webhook
// may hold a few rows more, which the listings never show (db/webhooks/capture-retention.ts). Ages are the
// scheduled expiry's (workflows/webhooks.ts).
import type { Kysely } from 'kysely';
import { GroupCommit } from '../../lib/concurrency/group-commit.ts';
import type { Database } from '../schema.ts';
import { trimCaptures } from './capture-retention.ts';
import { insertCaptures, type CaptureRecord } from './webhooks.ts';

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
  /**
   * Told how many captures each committed batch stored, for which webhooks (the metric, live streams)
   * and which of them forward.
   */
  onStored?: (count: number, webhookIds: string[], forwarding: string[]) => void;
  /**
   * Told, after each committed batch, which captures it stored for webhooks with a JSON Schema (by
   * webhook row id, with its owner), to check against it: after the answers, never before.
   */
  onToCheck?: (checks: CapturesToCheck[]) => void;
}

/** Captures a batch stored for a webhook with a JSON Schema. */
export interface CapturesToCheck {
  ref: number;
  owner: number;
  ids: number[];
}

/** Above this many webhooks with untrimmed rows counted, the counts restart (memory stays bounded). */
const MAX_TRACKED_WEBHOOKS = 100_000;

export class CaptureWriter {
  readonly #db: Kysely<Database>;
  readonly #keep: number;
  readonly #trimEvery: number;
  readonly #onError: (err: unknown) => void;
  readonly #onStored: (count: number, webhookIds: string[], forwarding: string[]) => void;
  readonly #onToCheck: (checks: CapturesToCheck[]) => void;
  readonly #writes: GroupCommit<CaptureRecord, boolean>;
  /** Rows added per webhook since its last trim. */
  readonly #untrimmed = new Map<number, number>();
  #toTrim = new Set<number>();
  #trimming: Promise<void> | null = null;

  constructor(db: Kysely<Database>, options: CaptureWriterOptions) {
    this.#db = db;
    this.#keep = options.keepPerWebhook;
    this.#trimEvery = options.trimEvery ?? 50;
    this.#onError = options.onError ?? (() => {});
    this.#onStored = options.onStored ?? (() => {});
    this.#onToCheck = options.onToCheck ?? (() => {});
    this.#writes = new GroupCommit((records) => this.#insert(records), {
      maxItems: options.maxBatch ?? 1000,
      maxConcurrent: options.maxConcurrent ?? 4,
      weight: (record) => record.bodySize,
      maxWeight: options.maxBatchBytes ?? 16 * 1024 * 1024,
    });
  }

  /** Resolves true once stored, false when the webhook does not exist. */
  write(record: CaptureRecord): Promise<boolean> {
    return this.#writes.submit(record);
  }

  /** Resolves when everything written so far is committed and trimmed. */
  async drain(): Promise<void> {
    await this.#writes.drain();
    while (this.#trimming) await this.#trimming;
  }

  /** One batch: its rows in one INSERT; each capture's answer is whether its webhook exists. */
  async #insert(records: CaptureRecord[]): Promise<boolean[]> {
    const stored = await insertCaptures(this.#db, records);
    let added = 0;
    const touched: string[] = [];
    const forwarding: string[] = [];
    const toCheck: CapturesToCheck[] = [];
    for (const [webhookId, { ref, added: n, forwarding: forwards, check }] of stored) {
      added += n;
      if (n > 0) touched.push(webhookId);
      if (n > 0 && forwards) forwarding.push(webhookId);
      if (check?.ids.length) toCheck.push({ ref, ...check });
    }
    // The rows are committed: whatever the telling does, the captures are stored, and counted for the trim.
    this.#countForTrim(stored.values());
    try {
      if (added > 0) this.#onStored(added, touched, forwarding);
    } catch (err) {
      this.#onError(err);
    }
    try {
      if (toCheck.length > 0) this.#onToCheck(toCheck);
    } catch (err) {
      this.#onError(err);
    }
    return records.map((r) => stored.has(r.webhookId));
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
