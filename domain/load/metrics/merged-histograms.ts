// The shards' latency and phase histograms merged (a decode of each snapshot's), and the last merges
// kept for the tests read last, so that polls between two reports do not decode them again.
import type { ShardSnapshot } from '../../../lib/load/snapshot.ts';
import { addEncodedHistogram, newHistogram } from './histogram.ts';
import { mergePhases } from '../phases.ts';
import { RecentMap } from '../../../lib/cache/recent-map.ts';

type Snapshots = readonly ShardSnapshot[];
interface HistogramsWanted {
  latency: boolean;
  phases: boolean;
}
/** The snapshots' latency histograms merged (empty when not wanted) and their phases' (null when not wanted). */
export type Histograms = (
  snapshots: Snapshots,
  wanted: HistogramsWanted,
) => { histogram: ReturnType<typeof newHistogram>; phases: ReturnType<typeof mergePhases> | null };

export const decodeHistograms: Histograms = (snapshots, { latency, phases }) => {
  const histogram = newHistogram();
  if (latency) for (const s of snapshots) if (s.histogram) addEncodedHistogram(histogram, s.histogram);
  return { histogram, phases: phases ? mergePhases(snapshots) : null };
};

/** How many tests' last merges are kept (each holds a merged histogram of 16-130 KB, six with phases). */
const KEPT_MERGES = 32;

/**
 * The last histograms merged from a test's snapshots, by its first snapshot, for the KEPT_MERGES tests
 * merged last: a reader that hands out the same snapshot object while its row is unchanged
 * (db/load/load-test-shards.ts) gets them back while every snapshot is as it was, instead of decoding
 * each again (shards report once a second; a status is polled more often, and each open chart reads
 * them once a second). A merge with more than is wanted serves too (the status's latency for a
 * threshold watch that reads none). Only figures leave a merge made with them (thresholdFigures,
 * intervalTracker): nothing changes them.
 */
const lastHistograms = new RecentMap<
  ShardSnapshot,
  HistogramsWanted & { snapshots: Snapshots; merged: ReturnType<Histograms> }
>(KEPT_MERGES);

export const keptHistograms: Histograms = (snapshots, wanted) => {
  const first = snapshots[0];
  if (!first) return decodeHistograms(snapshots, wanted);
  const last = lastHistograms.get(first);
  if (
    last &&
    (last.latency || !wanted.latency) &&
    (last.phases || !wanted.phases) &&
    last.snapshots.length === snapshots.length &&
    last.snapshots.every((s, i) => s === snapshots[i])
  )
    return last.merged;
  const merged = decodeHistograms(snapshots, wanted);
  lastHistograms.set(first, { ...wanted, snapshots, merged });
  return merged;
};
