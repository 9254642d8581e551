// Pass/fail thresholds of a load test (read from the start body by contract/load/thresholds.ts), evaluated on
// the figures of the histograms merged across every shard (metrics.ts), so a distributed test has one
// verdict, not one per instance. Times are milliseconds, rates percentages, throughput requests per
// second; `<phase>.<statistic>` reads a phase (phases.ts).
import type { LoadThreshold, ThresholdOutcome } from '../../../lib/jobs/load-test.ts';
import type { Operator, ThresholdMetric } from '../../../contract/load/threshold-words.ts';

const holds: Record<Operator, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
};

/** Each threshold against the figures (figures.ts: the merged histograms' and totals'). */
export function evaluateThresholds(
  thresholds: readonly LoadThreshold[],
  figures: Readonly<Record<ThresholdMetric, number>>,
): ThresholdOutcome[] {
  return thresholds.map((t) => {
    const observed = figures[t.metric as ThresholdMetric];
    return { threshold: t.threshold, observed, pass: holds[t.op as Operator](observed, t.value) };
  });
}

/** The thresholds' verdict: passed when every one holds (verdict.ts adds what a run that tested nothing gets). */
export const verdictOf = (outcomes: readonly ThresholdOutcome[]): 'passed' | 'failed' =>
  outcomes.every((o) => o.pass) ? 'passed' : 'failed';

/**
 * The first aborting threshold that fails once its delay has passed (`elapsedSeconds` since the test's start), or null.
 */
export function abortingFailure(
  thresholds: readonly LoadThreshold[],
  outcomes: readonly ThresholdOutcome[],
  elapsedSeconds: number,
): string | null {
  const i = thresholds.findIndex((t, k) => t.abortOnFail && elapsedSeconds >= t.delayAbortEval && !outcomes[k]!.pass);
  return i < 0 ? null : thresholds[i]!.threshold;
}
