// Bounded concurrency without a library: deterministic, so workflows use it as activities do.

/** Runs `work` on every item in order, at most `lanes` at once; resolves when all are done. */
export async function inLanes<T>(items: readonly T[], lanes: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
}
