// When a shard reports its totals: on its load thread's clock (shard-thread.ts), unasked, each
// shard at its own moment of the second (shard.ts: reportPhaseMs).
/** When a part reports: at once, then at `firstAt` (ms since the epoch) and every `everyMs` after. */
export interface ReportClock {
  firstAt: number;
  everyMs: number;
  phasesEvery: number;
}

/**
 * Calls `report` on `clock`: at once, then at `firstAt` (or at its first moment, a whole number of
 * intervals later, that is at least half an interval away: no two reports together) and every
 * `everyMs` after, each at its own time (no drift: a late one does not make the next late; one
 * missed whole is not made up). Its argument is the time the report was due. Answers the function
 * that stops it.
 */
export function onClock(clock: ReportClock, report: (due: number) => void): () => void {
  report(Date.now());
  let next = clock.firstAt;
  while (next - Date.now() < clock.everyMs / 2) next += clock.everyMs; // past already (a slow start): its next moment
  let timer: ReturnType<typeof setTimeout>;
  const wait = () => {
    timer = setTimeout(
      () => {
        const due = next;
        next += clock.everyMs;
        while (next <= Date.now()) next += clock.everyMs;
        wait();
        report(due);
      },
      Math.max(0, next - Date.now()),
    );
  };
  wait();
  return () => clearTimeout(timer);
}

/**
 * Whether report `round` carries the phases' histograms: every `phasesEvery`-th after the first. The
 * first, sent as the part starts, has timed nothing yet (building them there would be work at the
 * moment a replay's schedule begins).
 */
export const carriesPhases = (round: number, clock: ReportClock): boolean =>
  round > 0 && round % clock.phasesEvery === 0;
