// An ended test's results computed on the results' thread: the same results as on the event loop (a
// threshold's outcome, the verdict of the threshold that stopped it and each second's percentiles
// included), the thread started for it; and still given, with why, when the thread cannot give them.
import { afterAll, describe, expect, it } from 'vitest';
import { encodeHistogram, newHistogram } from '../../../../../domain/load/metrics/histogram.ts';
import { PerSecondCounts } from '../../../../../domain/load/metrics/per-second.ts';
import { ResultsThreads } from '../../../../../domain/load/results/results-threads.ts';
import { type ResultsInput, testResults } from '../../../../../domain/load/results/test-results.ts';
import { PhaseHistograms } from '../../../../../domain/load/phases.ts';
import { parseThreshold, type Threshold } from '../../../../../contract/load/thresholds.ts';

/** `shards` shards that each answered `perSecond` requests a second for `seconds` seconds, one report a second. */
function endedTest(shards: number, seconds: number, perSecond: number): ResultsInput {
  const rows: ResultsInput['rows'] = [];
  const reports: ResultsInput['reports'] = [];
  for (let shard = 0; shard < shards; shard++) {
    const counts = new PerSecondCounts();
    const latency = newHistogram();
    const phases = new PhaseHistograms();
    let latencySumUs = 0;
    for (let second = 0; second < seconds; second++) {
      for (let i = 0; i < perSecond; i++) {
        const us = 1000 + shard * 100 + second * 10 + i;
        const times = { dns: 0, connect: 0, tls: 0, ttfb: us - 40, transfer: 40 };
        counts.countSent(second);
        counts.countAnswer(second, us, i === 0, i === 0 ? 500 : 200, times);
        latency.recordValue(us);
        phases.record(times);
        latencySumUs += us;
      }
      reports.push(counts.drain());
    }
    const total = seconds * perSecond;
    rows.push({
      shard,
      attempt: 1,
      final: true,
      snapshot: {
        total,
        successful: total - seconds,
        failed: seconds,
        bytesSent: total * 80,
        bytesReceived: total * 250,
        latencySumUs,
        histogram: encodeHistogram(latency),
        statusCodes: { '200': total - seconds, '500': seconds },
        errors: {},
        inFlight: 0,
        dropped: 0,
        firstSentAt: 1_000,
        takenAt: 1_000 + seconds * 1000,
        phases: phases.snapshot(),
      },
    });
  }
  const thresholds = [parseThreshold({ threshold: 'p95 < 1', abortOnFail: true }) as Threshold];
  return { rows, reports, thresholds, abortedBy: 'p95 < 1' };
}

const pools: ResultsThreads[] = [];
const pool = (options: ConstructorParameters<typeof ResultsThreads>[0] = {}) => {
  const p = new ResultsThreads(options);
  pools.push(p);
  return p;
};
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

describe("an ended test's results on a thread", () => {
  const input = endedTest(3, 70, 20);

  it('gives the results the event loop would, computed on a thread started for them', async () => {
    const threads = pool();
    expect(threads.stats().threadIds).toEqual([]);
    const { results, onEventLoop } = await threads.results('t1', input);
    expect(onEventLoop).toBeNull();
    expect(threads.stats().threadIds).toHaveLength(1);
    expect(results).toEqual(await testResults(input));
    expect(results).toMatchObject({
      total_requests: 3 * 70 * 20,
      status_codes: { '200': 3 * 70 * 19, '500': 3 * 70 },
      verdict: 'failed',
      verdict_reason: 'thresholds',
      aborted_by: 'p95 < 1',
    });
    expect(results.p95_response_time_per_second).toHaveLength(70);
    expect(results.phases?.ttfb).toBeDefined();
  });

  it('computes them on the event loop when the thread cannot (past its time, or the pool closed)', async () => {
    const expected = await testResults(input);
    // A millisecond: the thread is ended before it answers.
    const hurried = pool({ budgetMs: 1 });
    expect(await hurried.results('t2', input)).toEqual({ results: expected, onEventLoop: 'time' });
    expect(hurried.stats().threadIds).toEqual([]);
    const closed = pool();
    await closed.close();
    expect(await closed.results('t3', input)).toEqual({ results: expected, onEventLoop: 'stopped' });
  });
});
