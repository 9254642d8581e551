// What happened in each second of a load test, by the second a request was sent in (since startAt):
// how many were sent, and of their answers how many came, how many failed, the sum and the maximum of
// their latencies. Counts and sums add and maxima take the larger across shards, so the merge is exact.

/** The answers to the requests sent in each second (index = second since startAt). */
export interface PerSecondAnswers {
  answered: number[];
  failed: number[];
  latencySumUs: number[];
  latencyMaxUs: number[];
}

/** A per-second array with its holes (seconds nothing happened in) as zeros. */
const dense = (a: number[]) => Array.from(a, (n) => n ?? 0);

export class PerSecondCounts {
  private readonly sent: number[] = [];
  private readonly answers: PerSecondAnswers = { answered: [], failed: [], latencySumUs: [], latencyMaxUs: [] };

  countSent(second: number): void {
    this.sent[second] = (this.sent[second] ?? 0) + 1;
  }

  countAnswer(second: number, latencyUs: number, failed: boolean): void {
    const a = this.answers;
    a.answered[second] = (a.answered[second] ?? 0) + 1;
    a.latencySumUs[second] = (a.latencySumUs[second] ?? 0) + latencyUs;
    a.latencyMaxUs[second] = Math.max(a.latencyMaxUs[second] ?? 0, latencyUs);
    if (failed) a.failed[second] = (a.failed[second] ?? 0) + 1;
  }

  /** The snapshot's `perSecond` (requests sent) and `seconds` (their answers). */
  snapshot(): { perSecond: number[]; seconds: PerSecondAnswers } {
    const a = this.answers;
    return {
      perSecond: dense(this.sent),
      seconds: {
        answered: dense(a.answered),
        failed: dense(a.failed),
        latencySumUs: dense(a.latencySumUs),
        latencyMaxUs: dense(a.latencyMaxUs),
      },
    };
  }
}

/** Adds `from` into `into`, index by index. */
function addEach(into: number[], from: number[]) {
  for (let i = 0; i < from.length; i += 1) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
}

/** Merges the shards' per-second counts (an empty snapshot has no `seconds`). */
export function mergePerSecond(shards: Array<{ perSecond: number[]; seconds?: PerSecondAnswers }>): {
  sent: number[];
  answers: PerSecondAnswers;
} {
  const sent: number[] = [];
  const answers: PerSecondAnswers = { answered: [], failed: [], latencySumUs: [], latencyMaxUs: [] };
  for (const s of shards) {
    addEach(sent, s.perSecond);
    if (!s.seconds) continue;
    addEach(answers.answered, s.seconds.answered);
    addEach(answers.failed, s.seconds.failed);
    addEach(answers.latencySumUs, s.seconds.latencySumUs);
    const max = s.seconds.latencyMaxUs;
    for (let i = 0; i < max.length; i += 1)
      answers.latencyMaxUs[i] = Math.max(answers.latencyMaxUs[i] ?? 0, max[i] ?? 0);
  }
  return { sent: dense(sent), answers };
}
