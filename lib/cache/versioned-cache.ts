// Values made from stored rows, each kept with the version of the row it was made from (Postgres's
// xmin, which every write of a row changes): a reader that read the same version again gets the
// value kept instead of making it anew. At most `max` keys, the least recently used dropped first.

export class VersionedCache<V> {
  readonly #entries = new Map<string, { version: string; value: V }>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** The value kept for `key` at `version`, or `make()`'s (kept in its place). */
  get(key: string, version: string, make: () => V): V {
    const kept = this.#entries.get(key);
    this.#entries.delete(key);
    const value = kept?.version === version ? kept.value : make();
    this.#entries.set(key, { version, value });
    if (this.#entries.size > this.#max)
      for (const oldest of this.#entries.keys()) {
        this.#entries.delete(oldest);
        break;
      }
    return value;
  }

  get size(): number {
    return this.#entries.size;
  }
}
