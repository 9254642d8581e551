// The live chart's points: rate, errors and percentiles of the last interval, not since the start.
import type { ShardSnapshot } from '../../../../../lib/load/snapshot.ts';
import { describe, expect, it } from 'vitest';
import { shardSnapshot, snapshotRow } from '../../../../support/snapshots.ts';
import { finalResults, intervalTracker, thresholdFigures } from '../../../../../domain/load/metrics/metrics.ts';
import { newPhaseTimes, PhaseHistograms } from '../../../../../domain/load/phases.ts';
import { mergeSeconds, PerSecondCounts } from '../../../../../domain/load/metrics/per-second.ts';
import { parseThreshold, type Threshold } from '../../../../../contract/load/thresholds.ts';

const snapshot = (latenciesMs: number[], failed: number, firstSentAt: number, takenAt: number) =>
  shardSnapshot(latenciesMs, { failed, firstSentAt, takenAt });
const row = (s: ShardSnapshot) => snapshotRow(s);

describe('intervalTracker', () => {
  it('gives the percentiles and rate of each interval', () => {
    const track = intervalTracker();
    const t0 = 1_000_000;
    const fast = Array.from({ length: 100 }, () => 10);
    const first = track([row(snapshot(fast, 0, t0, t0 + 1000))], t0 + 1000)!;
    expect(first).toMatchObject({ requests_per_second: 100, error_rate: 0 });
    expect(first.p50_response_time).toBeCloseTo(10, 0);

    // The next second is slow and half fails: its point says so, whatever came before.
    const slow = Array.from({ length: 50 }, () => 200);
    const second = track([row(snapshot([...fast, ...slow], 25, t0, t0 + 2000))], t0 + 2000)!;
    expect(second.requests_per_second).toBe(50);
    expect(second.error_rate).toBe(50);
    expect(second.p50_response_time).toBeCloseTo(200, -1);
    expect(second.p99_response_time).toBeCloseTo(200, -1);
  });

  it('reads the histograms a status poll merged from the same snapshots, without decoding them again', () => {
    const s = snapshot([10, 20, 30], 0, 1000, 3000);
    const polled = thresholdFigures([row(s)], 3000, ['p95']);
    s.histogram = 'not a histogram'; // the same object: what was merged from it is kept
    const point = intervalTracker()([row(s)], 3000);
    expect(point?.p95_response_time).toBe(polled.p95);
    expect(() => intervalTracker()([row({ ...s })], 3000)).toThrow();
  });

  it('has no point before anything was sent', () => {
    expect(intervalTracker()([], 5)).toBeNull();
  });
});

describe('finalResults per second', () => {
  it("merges each second's figures across shards and reports exactly: failures, mean and slowest latency", () => {
    const ms = (n: number) => n * 1000;
    // Shard a: two requests in second 0, two in second 1, one of which is answered (failed) after its first report.
    const a = new PerSecondCounts();
    for (const latency of [12, 8]) {
      a.countSent(0);
      a.countAnswer(0, ms(latency), false, 200);
    }
    a.countSent(1);
    a.countSent(1);
    a.countAnswer(1, ms(250), false, 200);
    const aFirst = a.drain();
    a.countAnswer(1, ms(50), true);
    const aLater = a.drain();
    expect(a.drain()).toEqual([]); // each figure is handed out once
    // Shard b: two failed in second 0, one in second 2.
    const b = new PerSecondCounts();
    for (const latency of [20, 40]) {
      b.countSent(0);
      b.countAnswer(0, ms(latency), true, 503);
    }
    b.countSent(2);
    b.countAnswer(2, ms(5), false, 200);
    const rows = [row(snapshot([], 0, 1000, 4000)), row(snapshot([], 0, 1000, 4000))];
    const r = finalResults(rows, mergeSeconds([aFirst, b.drain(), aLater]));
    expect(r.requests_per_second).toEqual([4, 2, 1]);
    expect(r.error_rate_per_second).toEqual([50, 50, 0]);
    expect(r.avg_response_time_per_second).toEqual([20, 150, 5]);
    expect(r.max_response_time_per_second).toEqual([40, 250, 5]);
  });
});

describe('thresholdFigures for a status poll', () => {
  it('merges the phases and reads percentiles only for the metrics asked for, with the same values', () => {
    const phases = new PhaseHistograms();
    for (let i = 1; i <= 100; i++) phases.record({ ...newPhaseTimes(), connect: 100, ttfb: i * 1000 });
    const rows = [row({ ...snapshot([5, 10, 20, 40], 0, 1000, 4000), phases: phases.snapshot() })];
    const all = thresholdFigures(rows, 5000);
    const poll = thresholdFigures(rows, 5000, ['p95']);
    expect(poll.p95).toBe(all.p95);
    expect(poll).not.toHaveProperty('p99');
    expect(poll).not.toHaveProperty('ttfb.p95');
    expect(poll.error_rate).toBe(all.error_rate); // the cheap figures are all there
    const phased = thresholdFigures(rows, 5000, ['p95', 'ttfb.p95']);
    expect(phased['ttfb.p95']).toBe(all['ttfb.p95']);
    expect(all['ttfb.p95']).toBeGreaterThan(90);
    expect(thresholdFigures(rows, 5000, ['max']).max).toBe(all.max);
  });

  it('merges the phases only for a phase’s metric (p99.9 is the latency’s)', () => {
    // Phases' histograms that cannot be decoded fail any merge that reads them.
    const broken = Object.fromEntries(Object.keys(new PhaseHistograms().snapshot()).map((p) => [p, 'not a histogram']));
    const rows = [row({ ...snapshot([5, 10, 20], 0, 1000, 4000), phases: broken as ShardSnapshot['phases'] })];
    expect(thresholdFigures(rows, 5000, ['p99.9', 'p95', 'max']).max).toBeCloseTo(20, 0);
    expect(() => thresholdFigures(rows, 5000, ['ttfb.p95'])).toThrow();
  });

  it('decodes the histograms again only when a snapshot is another object than at the last poll', () => {
    const a = snapshot([5, 10, 20], 0, 1000, 4000);
    const b = snapshot([30, 40], 0, 1000, 4000);
    const first = thresholdFigures([row(a), row(b)], 5000, ['p95', 'max']);
    expect(first.max).toBeCloseTo(40, 0);
    // The same objects (a reader hands them out while their rows are unchanged): not decoded again,
    // so a histogram that cannot be decoded is not even read; the cheap figures follow the rows.
    b.histogram = 'not a histogram';
    const counted = { shard: 1, attempt: 1, snapshot: b, final: false, sent: { sent: 2, countedAt: 4000 } };
    const again = thresholdFigures([row(a), counted], 6000, ['p95', 'max']);
    expect(again.max).toBe(first.max);
    expect(again.throughput).toBeLessThan(first.throughput);
    // Another object in any place, or other rows: decoded anew.
    expect(() => thresholdFigures([row(a), row({ ...b })], 6000, ['p95'])).toThrow();
    expect(thresholdFigures([row(a)], 6000, ['max']).max).toBeCloseTo(20, 0);
    // The same objects with the phases asked for too: another merge, decoded anew.
    expect(() => thresholdFigures([row(a), row(b)], 6000, ['p95', 'ttfb.p95'])).toThrow();
  });

  it('serves a narrower ask from a kept merge, and keeps the last 32 tests’ merges only', () => {
    const phases = new PhaseHistograms();
    phases.record({ ...newPhaseTimes(), ttfb: 5000 });
    const a = { ...snapshot([5, 10, 20], 0, 1000, 4000), phases: phases.snapshot() };
    const both = thresholdFigures([row(a)], 5000, ['p95', 'ttfb.p95']);
    a.histogram = 'not a histogram';
    expect(thresholdFigures([row(a)], 5000, ['p95']).p95).toBe(both.p95); // the latency kept with the phases
    for (let n = 0; n < 32; n++) thresholdFigures([row(snapshot([n + 1], 0, 1000, 4000))], 5000, ['p95']);
    expect(() => thresholdFigures([row(a)], 5000, ['p95'])).toThrow(); // 32 other tests since: decoded anew
  });

  it('decodes no histogram for metrics that need none (an error rate’s threshold)', () => {
    // A histogram that cannot be decoded fails any merge that reads it.
    const rows = [row({ ...snapshot([5, 10], 1, 1000, 4000), histogram: 'not a histogram' })];
    const figures = thresholdFigures(rows, 5000, ['error_rate', 'throughput', 'avg']);
    expect(figures).toMatchObject({ error_rate: 50, avg: 7.5 });
    expect(figures).not.toHaveProperty('max');
    expect(() => thresholdFigures(rows, 5000, ['min'])).toThrow();
    expect(() => thresholdFigures(rows, 5000, ['p99.9'])).toThrow();
  });
});

describe('connection errors in the results', () => {
  it('keeps them apart from the requests (total, latency, throughput), in error_rate and connection_errors', () => {
    // Two shards: one answered 10 requests of 20 ms and met 10 refused connections, one met only refusals.
    const a = { ...snapshot(Array(10).fill(20), 0, 1000, 11_000), connectionErrors: 10, errors: { ECONNREFUSED: 10 } };
    a.statusCodes = { 200: 10 };
    const b = { ...snapshot([], 0, 1000, 11_000), connectionErrors: 5, errors: { ECONNREFUSED: 5 } };
    const r = finalResults([row(a), row(b)], []);
    expect(r).toMatchObject({
      total_requests: 10,
      successful_requests: 10,
      failed_requests: 0,
      connection_errors: 15,
      error_rate: 60, // 15 of 25 attempts
      throughput: 1, // 10 answered over 10 s
      errors: { ECONNREFUSED: 15 },
    });
    expect(r.p95_response_time).toBeCloseTo(20, 0);
    // Some request was answered below 400: the run tested something; without thresholds, no verdict.
    expect(r).not.toHaveProperty('verdict');
  });

  it('fails a run whose every attempt failed, thresholds or not, naming the commonest failure', () => {
    const dead = { ...snapshot([], 0, 1000, 11_000), connectionErrors: 412, errors: { ECONNREFUSED: 412 } };
    const r = finalResults([row(dead)], []);
    expect(r).toMatchObject({
      total_requests: 0,
      connection_errors: 412,
      error_rate: 100,
      p95_response_time: 0,
      throughput: 0,
      verdict: 'failed',
      verdict_reason: 'target_unreachable',
      verdict_detail: 'all 412 attempts failed: ECONNREFUSED',
    });
    // A threshold that an empty run "passes" (p95 0 < 300) does not make it pass.
    const withThreshold = finalResults([row(dead)], [], [parseThreshold('p(95)<300') as Threshold]);
    expect(withThreshold.thresholds).toEqual([{ threshold: 'p95 < 300', observed: 0, pass: true }]);
    expect(withThreshold).toMatchObject({ verdict: 'failed', verdict_reason: 'target_unreachable' });
    // Answered, but only with errors: every attempt failed too.
    const broken = { ...snapshot(Array(30).fill(5), 30, 1000, 11_000), statusCodes: { 503: 30 } };
    expect(finalResults([row(broken)], [])).toMatchObject({
      verdict: 'failed',
      verdict_reason: 'target_unreachable',
      verdict_detail: 'all 30 attempts failed: HTTP 503',
    });
  });
});
