// A load test's verdict: failed when a threshold did not hold, and also, thresholds or not, when the
// run tested nothing: every attempt failed (no request answered below 400: the target refused the
// connections, its certificate or name did not check out, or it answered only errors). That reason,
// `target_unreachable`, comes with the commonest failure ("all 412 attempts failed: ECONNREFUSED"),
// so that a CI step against a dead or mistyped URL fails rather than passing with nothing measured.
import type { ThresholdOutcome } from '../../../lib/jobs/load-test.ts';
import type { Totals } from './totals.ts';
import { plural } from '../../../lib/load/plural.ts';

export type VerdictReason = 'target_unreachable' | 'thresholds';

export interface Verdict {
  verdict: 'passed' | 'failed';
  /** Why it failed: `target_unreachable` before `thresholds` (absent when it passed). */
  verdict_reason?: VerdictReason;
  /** The reason in words: the attempts and their commonest failure, or the thresholds that failed. */
  verdict_detail?: string;
}

/**
 * Why the run tested nothing, or null when some request was answered below 400 (or nothing was
 * attempted at all): every attempt failed, named by its commonest failure (an error's kind, or a status).
 */
export function unreachableDetail(
  t: Pick<Totals, 'total' | 'successful' | 'connectionErrors'>,
  errors: Readonly<Record<string, number>>,
  statusCodes: Readonly<Record<string, number>>,
): string | null {
  const attempts = t.total + t.connectionErrors;
  if (attempts === 0 || t.successful > 0) return null;
  const failures = [
    ...Object.entries(errors),
    ...Object.entries(statusCodes)
      .filter(([code]) => Number(code) >= 400)
      .map(([code, n]) => [`HTTP ${code}`, n] as const),
  ].sort((a, b) => b[1] - a[1]);
  const [kind, count] = failures[0] ?? ['no answer', attempts];
  const all = attempts === 1 ? 'the only attempt failed' : `all ${plural(attempts, 'attempt')} failed`;
  return count >= attempts ? `${all}: ${kind}` : `${all}, most with ${kind} (${plural(count, 'attempt')})`;
}

/** The verdict of a run: its thresholds' outcomes (null: it has none) and why it tested nothing (null: it did not). */
export function runVerdict(outcomes: readonly ThresholdOutcome[] | null, unreachable: string | null): Verdict | null {
  if (unreachable) return { verdict: 'failed', verdict_reason: 'target_unreachable', verdict_detail: unreachable };
  if (!outcomes) return null;
  const failed = outcomes.filter((o) => !o.pass);
  if (!failed.length) return { verdict: 'passed' };
  return {
    verdict: 'failed',
    verdict_reason: 'thresholds',
    verdict_detail: `${failed.length} of ${plural(outcomes.length, 'threshold')} did not hold: ${failed
      .map((o) => `${o.threshold} (observed ${o.observed})`)
      .join(', ')}`,
  };
}
