// A gate for background work that yields to foreground work (deliveries to captures, in the
// embedded mode where both share a thread). While `busy()` says so, one waiter goes through every
// 1/perSecond s, in the order they came; once it says not, every waiter goes at once. Waiters hold no
// reserved turn: a burst that ends leaves no queue of future turns behind it (a gate that handed out
// turns kept deliveries at its busy rate for up to 20 s after a burst, measured).

export function busyGate(busy: () => boolean | Promise<boolean>, perSecond: number): () => Promise<void> {
  const interval = 1000 / perSecond;
  const waiting: Array<() => void> = [];
  let stepping = false;
  const isBusy = async () => {
    try {
      return await busy();
    } catch {
      return false; // not knowing is no reason to hold work back
    }
  };
  const step = async () => {
    if (await isBusy()) waiting.shift()?.();
    else waiting.splice(0).forEach((go) => go());
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
