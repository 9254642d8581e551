// Long synchronous work cut into slices, the event loop free between them: a loop over tens of
// thousands of rows held up every request the process answered meanwhile.

/** Lets what waits on the event loop (I/O, timers) run before going on. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** `f` of each item in order, the event loop let run after every `slice` items. */
export async function mapInSlices<T, U>(items: readonly T[], slice: number, f: (item: T) => U): Promise<U[]> {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % slice === 0) await yieldToEventLoop();
    out.push(f(items[i]!));
  }
  return out;
}
