// npm run bench:merge
// What a status poll and a test's threshold watch pay to merge its shards' snapshots (domain/load/
// metrics.ts: thresholdFigures), beside the same histograms merged by hdr-histogram-js's own decode
// and add, in the same run. BENCH_SHARDS (1,000) snapshots of shards that ran BENCH_TEST_SECONDS (60)
// at BENCH_SAMPLES (200) answers a second, with a long-tailed latency and the five phases, as the
// shards store them (domain/load/metrics/histogram.ts: encodeHistogram), merged BENCH_ROUNDS (7) times for
// each set of metrics a threshold may ask for: the median of the rounds, and the ratio.
import type { ShardSnapshot } from '../../lib/load/snapshot.ts';
import hdr from 'hdr-histogram-js';
import { encodeHistogram, newHistogram } from '../../domain/load/metrics/histogram.ts';
import { thresholdFigures } from '../../domain/load/metrics/metrics.ts';
import { PHASES, PhaseHistograms } from '../../domain/load/phases.ts';
import type { ThresholdMetric } from '../../contract/load/threshold-words.ts';
import type { ShardSnapshotRow } from '../../lib/jobs/load-test.ts';
import { quantile } from './machine.ts';

const SHARDS = Number(process.env.BENCH_SHARDS ?? 1000);
const TEST_SECONDS = Number(process.env.BENCH_TEST_SECONDS ?? 60);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
/** Distinct shards simulated (the others repeat them: a merge's cost does not depend on which). */
const DISTINCT = Math.min(SHARDS, 50);

function simulatedShard(): ShardSnapshot {
  const latency = newHistogram();
  const phases = new PhaseHistograms();
  let total = 0;
  let latencySumUs = 0;
  for (let i = 0; i < TEST_SECONDS * SAMPLES; i++) {
    const us = Math.round(300 + 2000 * -Math.log(1 - Math.random())); // 0.3 ms and up, long-tailed
    latency.recordValue(us);
    phases.record({ dns: 0, connect: i % SAMPLES === 0 ? 150 : 0, tls: 0, ttfb: us - 40, transfer: 40 });
    total += 1;
    latencySumUs += us;
  }
  return {
    total,
    successful: total,
    failed: Math.floor(total / 100),
    bytesSent: total * 80,
    bytesReceived: total * 250,
    latencySumUs,
    histogram: encodeHistogram(latency),
    statusCodes: { '200': total },
    errors: {},
    inFlight: 0,
    dropped: 0,
    firstSentAt: 0,
    takenAt: TEST_SECONDS * 1000,
    phases: phases.snapshot(),
  };
}

const distinct = Array.from({ length: DISTINCT }, simulatedShard);
const rows: Array<ShardSnapshotRow<ShardSnapshot>> = Array.from({ length: SHARDS }, (_, shard) => ({
  shard,
  attempt: 1,
  snapshot: distinct[shard % DISTINCT]!,
  final: false,
}));

/** The histograms merged the library's way: each decoded (hdr.decodeFromCompressedBase64), then added. */
function libraryMerge(withPhases: boolean): number {
  const latency = newHistogram();
  const phases = PHASES.map(() => newHistogram());
  for (const { snapshot: s } of rows) {
    latency.add(hdr.decodeFromCompressedBase64(s.histogram, 64, false));
    if (withPhases)
      for (const [i, p] of PHASES.entries()) phases[i]!.add(hdr.decodeFromCompressedBase64(s.phases![p], 64, false));
  }
  return latency.getValueAtPercentile(95);
}

const median = (f: () => unknown) => {
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  return quantile(
    times.sort((a, b) => a - b),
    0.5,
  );
};

console.log(
  `\nMerging ${SHARDS.toLocaleString('en-US')} shards' snapshots (${TEST_SECONDS} s at ${SAMPLES} answers ` +
    `a second each), ${new Date().toISOString()}: median of ${ROUNDS} rounds`,
);
console.log('  metrics asked for | ours (thresholdFigures) | hdr-histogram-js decode and add | ratio');
const cases: Array<{ name: string; metrics: ThresholdMetric[]; phases: boolean }> = [
  { name: 'error_rate (no histogram read)', metrics: ['error_rate'], phases: false },
  { name: 'p95 (a status poll)', metrics: ['p95'], phases: false },
  { name: 'p95 and ttfb.p95 (a phase)', metrics: ['p95', 'ttfb.p95'], phases: true },
];
for (const c of cases) {
  // The library's way decodes the latency histograms for every metric (as the merge did before it read only what was
  // asked).
  const peer = median(() => libraryMerge(c.phases));
  const ours = median(() => thresholdFigures(rows, TEST_SECONDS * 1000, c.metrics));
  console.log(`  ${c.name} | ${ours.toFixed(1)} ms | ${peer.toFixed(1)} ms | ${(ours / peer).toFixed(2)}`);
}
