// What happened in each second of a load test, by the second a request was sent in (since startAt):
// how many were sent, and of their answers how many came, how many failed, their latencies (sum,
// maximum and an HDR histogram), their status codes and the sums of their phases. A shard keeps only
// the seconds that changed since it last reported (`drain`), and stores those figures once, as rows
// that are never rewritten (db/load/load-test-shards.ts); every report of a second adds to the earlier ones, so
// a second split across reports, threads, shards and attempts merges exactly (`mergeSeconds`):
// counts and sums add, maxima take the larger, histograms add bucket by bucket.
import { addEncodedHistogram, encodeHistogram } from './histogram.ts';
import hdr from 'hdr-histogram-js';
import { PHASES, type PhaseTimes } from '../phases.ts';
import { addCounts } from './totals.ts';
import type { SecondFigures, Sending } from '../../../lib/load/snapshot.ts';

type Histogram = ReturnType<typeof hdr.build>;

/** A second's histogram: µs, 3 significant digits as the test's; 32-bit counts (a second's never near 2^32). */
const secondHistogram = (): Histogram =>
  hdr.build({ bitBucketSize: 32, autoResize: true, numberOfSignificantValueDigits: 3, useWebAssembly: false });

export class PerSecondCounts {
  /** The seconds counted in since the last drain. */
  private readonly open = new Map<number, MergedSecond>();
  private sending: Sending | null = null;
  private sentBeforeLast = 0;
  private sentInLast = 0;

  /** The second counted in last: most counts of a second follow one another. */
  private last: { second: number; figures: MergedSecond } | null = null;

  private at(second: number): MergedSecond {
    if (this.last?.second === second) return this.last.figures;
    let figures = this.open.get(second);
    if (!figures) {
      figures = emptySecond();
      this.open.set(second, figures);
    }
    this.last = { second, figures };
    return figures;
  }

  countSent(second: number): void {
    this.at(second).sent += 1;
    const s = this.sending;
    if (!s) {
      this.sending = { first: second, last: second, pace: 1 };
      this.sentInLast = 1;
      return;
    }
    if (second > s.last) {
      this.sentBeforeLast = second === s.last + 1 ? this.sentInLast : 0;
      this.sentInLast = 0;
      s.last = second;
    }
    if (second === s.last) this.sentInLast += 1;
    else if (second === s.last - 1) this.sentBeforeLast += 1;
    s.first = Math.min(s.first, second);
    s.pace = Math.max(this.sentInLast, this.sentBeforeLast);
  }

  /**
   * A connection error of an attempt of `second`: not a request the target got, so it leaves the
   * second's sent count (a report may then carry -1 for a second an earlier one counted: they add up).
   */
  countConnectionError(second: number): void {
    const s = this.at(second);
    s.sent -= 1;
    s.connectionErrors += 1;
  }

  /**
   * An answer to a request of `second`: its latency, whether it failed, and (when it has one) its status
   * and phases.
   */
  countAnswer(second: number, latencyUs: number, failed: boolean, status?: number, phases?: PhaseTimes): void {
    const s = this.at(second);
    s.answered += 1;
    s.latencySumUs += latencyUs;
    s.latencyMaxUs = Math.max(s.latencyMaxUs, latencyUs);
    s.histogram ??= secondHistogram();
    s.histogram.recordValue(latencyUs);
    if (failed) s.failed += 1;
    if (status === undefined) return;
    s.statusCodes[status] = (s.statusCodes[status] ?? 0) + 1;
    if (!phases) return;
    s.phased += 1;
    // Each phase by its name, in PHASES' order: a keyed read of a varying name is slower, and an entries()
    // iterator allocated an array a phase, for every answer.
    const sums = s.phaseSumUs;
    sums[0] = (sums[0] ?? 0) + Math.max(0, Math.round(phases.dns));
    sums[1] = (sums[1] ?? 0) + Math.max(0, Math.round(phases.connect));
    sums[2] = (sums[2] ?? 0) + Math.max(0, Math.round(phases.tls));
    sums[3] = (sums[3] ?? 0) + Math.max(0, Math.round(phases.ttfb));
    sums[4] = (sums[4] ?? 0) + Math.max(0, Math.round(phases.transfer));
  }

  /** The seconds sent in so far (null: none yet). */
  sent(): Sending | null {
    return this.sending ? { ...this.sending } : null;
  }

  /** What changed since the last drain, by second, and forgets it: each figure is handed out once. */
  drain(): SecondFigures[] {
    const out = [...this.open.entries()].sort(([a], [b]) => a - b).map(([second, s]) => figuresOf(second, s));
    this.open.clear();
    this.last = null;
    return out;
  }
}

function figuresOf(second: number, s: MergedSecond): SecondFigures {
  return {
    second,
    sent: s.sent,
    answered: s.answered,
    failed: s.failed,
    latencySumUs: s.latencySumUs,
    latencyMaxUs: s.latencyMaxUs,
    ...(s.histogram ? { histogram: encodeHistogram(s.histogram) } : {}),
    ...(Object.keys(s.statusCodes).length ? { statusCodes: s.statusCodes } : {}),
    ...(s.phased ? { phased: s.phased, phaseSumUs: s.phaseSumUs } : {}),
    ...(s.connectionErrors ? { connectionErrors: s.connectionErrors } : {}),
  };
}

/**
 * Several parts' sending merged: the earliest first second, the latest last, and the paces of the parts
 * sending then added.
 */
export function mergeSending(parts: ReadonlyArray<Sending | null | undefined>): Sending | null {
  const known = parts.filter((s): s is Sending => !!s);
  if (!known.length) return null;
  const last = Math.max(...known.map((s) => s.last));
  return {
    first: Math.min(...known.map((s) => s.first)),
    last,
    pace: known.reduce((n, s) => n + (s.last >= last - 1 ? s.pace : 0), 0),
  };
}

/** A second's figures: counted by a shard until its next report, or merged from every report of it. */
export interface MergedSecond {
  sent: number;
  answered: number;
  failed: number;
  latencySumUs: number;
  latencyMaxUs: number;
  /**
   * None before an answer; merged only when asked for (decoding every second's histograms is the merge's
   * main cost).
   */
  histogram: Histogram | null;
  statusCodes: Record<string, number>;
  phased: number;
  phaseSumUs: number[];
  /**
   * Of the answers, those reported with their latencies' histogram and statuses: all but those of a test
   * run before seconds had them, which no migration can give them (2026-11-29-023).
   */
  detailed: number;
  /** Attempts that failed before their request was sent: in neither `sent` nor `answered`. */
  connectionErrors: number;
}

const emptySecond = (): MergedSecond => ({
  sent: 0,
  answered: 0,
  failed: 0,
  latencySumUs: 0,
  latencyMaxUs: 0,
  histogram: null,
  statusCodes: {},
  phased: 0,
  phaseSumUs: PHASES.map(() => 0),
  detailed: 0,
  connectionErrors: 0,
});

/**
 * Every report's seconds merged, indexed by second (seconds nothing was reported in are empty, up to
 * the last one reported). Histograms are decoded only for the seconds `withHistograms` accepts.
 */
export function mergeSeconds(
  reports: Iterable<readonly SecondFigures[]>,
  withHistograms: (second: number) => boolean = () => false,
): MergedSecond[] {
  const merged: MergedSecond[] = [];
  for (const report of reports) {
    for (const f of report) {
      for (let i = merged.length; i < f.second; i++) merged.push(emptySecond());
      const m = merged[f.second] ?? emptySecond();
      merged[f.second] = m;
      m.sent += f.sent;
      m.answered += f.answered;
      m.failed += f.failed;
      m.latencySumUs += f.latencySumUs;
      m.latencyMaxUs = Math.max(m.latencyMaxUs, f.latencyMaxUs);
      if (f.statusCodes) addCounts(m.statusCodes, f.statusCodes);
      m.phased += f.phased ?? 0;
      m.connectionErrors += f.connectionErrors ?? 0;
      if (f.histogram) m.detailed += f.answered;
      for (const [i, us] of (f.phaseSumUs ?? []).entries()) m.phaseSumUs[i] = (m.phaseSumUs[i] ?? 0) + us;
      if (f.histogram && withHistograms(f.second)) {
        m.histogram ??= secondHistogram();
        addEncodedHistogram(m.histogram, f.histogram);
      }
    }
  }
  return merged;
}
