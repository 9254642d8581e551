// A gate for background work that yields to foreground work, a wait for foreground work to end,
// and the rate a gate can go by.
//
// The gate: for background work that yields to foreground work (deliveries to captures, in the
// embedded mode where both share a thread). While `busy()` says so, one waiter goes through every
// 1/perSecond s, in the order they came; once it says not, every waiter goes at once. Waiters hold no
// reserved turn: a burst that ends leaves no queue of future turns behind it (a gate that handed out
// turns kept deliveries at its busy rate for up to 20 s after a burst, measured).

export function busyGate(busy: () => boolean | Promise<boolean>, perSecond: number): () => Promise<void> {
  const interval = 1000 / perSecond;
  const waiting: Array<() => void> = [];
  let stepping = false;
  const isBusy = () => askBusy(busy);
  const step = async () => {
    if (await isBusy()) waiting.shift()?.();
    else for (const go of waiting.splice(0)) go();
    stepping = waiting.length > 0;
    if (stepping) setTimeout(step, interval);
  };
  return async function pass(): Promise<void> {
    if (waiting.length === 0 && !(await isBusy())) return;
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (!stepping) {
        stepping = true;
        setTimeout(step, interval);
      }
    });
  };
}

/** Whether `busy()` says so; not knowing is no reason to hold work back. */
async function askBusy(busy: () => boolean | Promise<boolean>): Promise<boolean> {
  try {
    return await busy();
  } catch {
    return false;
  }
}

/**
 * Resolves once `busy()` says not (asked every `everyMs`), or after `maxMs` at most; at once when it
 * says not at first (a busy() that fails counts as not busy, as for the gate).
 */
export async function waitWhileBusy(
  busy: () => boolean | Promise<boolean>,
  maxMs: number,
  everyMs: number,
): Promise<void> {
  const until = performance.now() + maxMs;
  for (let left = maxMs; left > 0 && (await askBusy(busy)); left = until - performance.now()) {
    await new Promise((r) => setTimeout(r, Math.min(everyMs, left)));
  }
}

/**
 * How fast a counter grows, per second, over the last `windowMs` or so (for busy gates): one reading
 * at a time, shared by every caller meanwhile (a reading may wait behind the very work it measures);
 * a rate from readings further apart than `staleMs` would average a burst that has just begun with
 * the quiet before it, so a stale reading is followed by a fresh one `windowMs` later.
 */
export function rateOf(
  count: () => Promise<number>,
  { windowMs = 200, staleMs = 1000, now = () => performance.now() } = {},
): () => Promise<number> {
  let last = { at: -Infinity, count: 0 }; // the first reading is a stale one
  let perSecond = 0;
  let reading: Promise<number> | null = null;
  const read = async () => ({ count: await count(), at: now() });
  const update = async () => {
    let next = await read();
    if (next.at - last.at > staleMs) {
      last = next;
      await new Promise((r) => setTimeout(r, windowMs));
      next = await read();
    }
    perSecond = ((next.count - last.count) * 1000) / Math.max(1, next.at - last.at);
    last = next;
    return perSecond;
  };
  return async () => {
    if (reading) return reading; // a measurement under way (a fresh window takes windowMs)
    if (now() - last.at < windowMs) return perSecond;
    reading = update().finally(() => {
      reading = null;
    });
    return reading;
  };
}
