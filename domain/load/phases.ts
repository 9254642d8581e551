// The phases of every request a shard sends, as k6 reports them: DNS (resolving the target's name),
// connect (TCP), TLS (the handshake), time to first byte (from the request written to the first byte
// of the answer) and transfer (from the first byte to the answer's end). A request on a kept-alive
// connection opened nothing: zero for DNS, connect and TLS. An address literal is not resolved: zero
// for DNS. Each phase has its own HDR histogram in microseconds, merged exactly across shards like the
// total latency. In the open model a request may also wait for a free connection; that wait is in
// the total (measured from the scheduled send) but in no phase, so the phases add up to at most it.
import { PHASE_STATS, PHASES, type Phase, type PhaseStat } from '../../lib/load/phases.ts';
import { addEncodedHistogram, encodeHistogram, newHistogram } from './metrics/histogram.ts';

export { PHASE_STATS, PHASES, type Phase, type PhaseStat };

/** The phases of one request in microseconds (a connection keeps those of its last request). */
export type PhaseTimes = Record<Phase, number>;

export const newPhaseTimes = (): PhaseTimes => ({ dns: 0, connect: 0, tls: 0, ttfb: 0, transfer: 0 });

/**
 * A phase's histogram. Most phases of most requests are 0 (a kept-alive connection opens nothing): those
 * are counted, and recorded at once when it is encoded.
 */
class PhaseHistogram {
  private readonly histogram = newHistogram();
  private zeros = 0;

  record(us: number): void {
    const value = Math.round(us);
    if (value > 0) this.histogram.recordValue(value);
    else this.zeros += 1;
  }

  encode(): string {
    if (this.zeros) this.histogram.recordValueWithCount(0, this.zeros);
    this.zeros = 0;
    return encodeHistogram(this.histogram);
  }
}

/** One histogram per phase, fed with every answered request. */
export class PhaseHistograms {
  private readonly phases = Object.fromEntries(PHASES.map((p) => [p, new PhaseHistogram()])) as Record<
    Phase,
    PhaseHistogram
  >;

  record(t: PhaseTimes): void {
    // Each by its name: a keyed read of a varying name (t[PHASES[i]]) is slower.
    const p = this.phases;
    p.dns.record(t.dns);
    p.connect.record(t.connect);
    p.tls.record(t.tls);
    p.ttfb.record(t.ttfb);
    p.transfer.record(t.transfer);
  }

  snapshot(): Record<Phase, string> {
    return Object.fromEntries(PHASES.map((p) => [p, this.phases[p].encode()])) as Record<Phase, string>;
  }
}

type Histogram = ReturnType<typeof newHistogram>;

/** Every snapshot's phase histograms merged, phase by phase; null when no snapshot has them. */
export function mergePhases(
  snapshots: ReadonlyArray<{ phases?: Record<Phase, string> }>,
): Record<Phase, Histogram> | null {
  const with_ = snapshots.filter((s) => s.phases);
  if (with_.length === 0) return null;
  const merged = Object.fromEntries(PHASES.map((p) => [p, newHistogram()])) as Record<Phase, Histogram>;
  for (const s of with_) for (const p of PHASES) addEncodedHistogram(merged[p], s.phases![p]);
  return merged;
}

/** The statistics of a phase in the results and the thresholds, in ms. */
/** The results show these per phase (thresholds may name every PHASE_STATS one). */
const SHOWN: readonly PhaseStat[] = ['avg', 'p50', 'p90', 'p95', 'p99', 'max'];

const ms = (us: number) => Math.round(us / 10) / 100;

export function phaseStat(h: Histogram, stat: PhaseStat): number {
  if (!h.totalCount) return 0;
  if (stat === 'avg') return ms(h.mean);
  if (stat === 'max') return ms(h.maxValue);
  return ms(h.getValueAtPercentile(PHASE_STATS[stat]));
}

/** The results' `phases`: per phase avg, p50, p90, p95, p99 and max in ms. */
export function phaseSummary(merged: Record<Phase, Histogram>): Record<Phase, Record<string, number>> {
  return Object.fromEntries(
    PHASES.map((p) => [p, Object.fromEntries(SHOWN.map((s) => [s, phaseStat(merged[p], s)]))]),
  ) as Record<Phase, Record<string, number>>;
}
