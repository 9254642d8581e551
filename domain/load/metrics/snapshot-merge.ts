// One shard's snapshot from the snapshots of its parts (a shard runs its users on several threads:
// threads.ts). Counts add, histograms merge bucket by bucket, times take the earliest first request
// and the latest snapshot: the shard reports as if one generator had run all its users.
import type { ShardSnapshot, StepSnapshot } from '../../../lib/load/snapshot.ts';
import { addEncodedHistogram, encodeHistogram, newHistogram } from './histogram.ts';
import { mergeSending } from './per-second.ts';
import { PHASES, type Phase } from '../phases.ts';
import { addCounts } from './totals.ts';

/** Compressed base64 HDR histograms merged into one, encoded the same way. */
const mergedHistogram = (encoded: string[]) => {
  const h = newHistogram();
  for (const e of encoded) addEncodedHistogram(h, e);
  return encodeHistogram(h);
};

/**
 * The parts' snapshots as one; their phases only `withPhases` (merging them decodes and encodes five histograms a
 * part).
 */
export function mergeSnapshots(parts: readonly ShardSnapshot[], withPhases = true): ShardSnapshot {
  if (parts.length === 1) {
    const { phases, ...rest } = parts[0]!;
    return withPhases && phases ? parts[0]! : rest;
  }
  const sum = (pick: (s: ShardSnapshot) => number) => parts.reduce((n, s) => n + pick(s), 0);
  const firsts = parts.flatMap((s) => (s.firstSentAt === null ? [] : [s.firstSentAt]));
  const phased = withPhases ? parts.filter((s) => s.phases) : [];
  const withSteps = parts.filter((s) => s.steps?.length);
  const http2 = mergeHttp2(parts);
  return {
    total: sum((s) => s.total),
    successful: sum((s) => s.successful),
    failed: sum((s) => s.failed),
    connectionErrors: sum((s) => s.connectionErrors ?? 0),
    bytesSent: sum((s) => s.bytesSent),
    bytesReceived: sum((s) => s.bytesReceived),
    latencySumUs: sum((s) => s.latencySumUs),
    histogram: mergedHistogram(parts.map((s) => s.histogram)),
    statusCodes: parts.reduce((into, s) => addCounts(into, s.statusCodes), {} as Record<string, number>),
    errors: parts.reduce((into, s) => addCounts(into, s.errors), {} as Record<string, number>),
    inFlight: sum((s) => s.inFlight),
    dropped: sum((s) => s.dropped),
    firstSentAt: firsts.length ? Math.min(...firsts) : null,
    takenAt: Math.max(...parts.map((s) => s.takenAt)),
    sending: mergeSending(parts.map((s) => s.sending)),
    // Each part's seconds as they came: they add up wherever they are merged (per-second.ts).
    newSeconds: parts.flatMap((s) => s.newSeconds ?? []),
    ...(phased.length
      ? {
          phases: Object.fromEntries(
            PHASES.map((p) => [p, mergedHistogram(phased.map((s) => s.phases![p]))]),
          ) as Record<Phase, string>,
        }
      : {}),
    ...(withSteps.length ? { steps: mergeStepSnapshots(withSteps.map((s) => s.steps!)) } : {}),
    ...(parts.some((s) => s.protocols)
      ? { protocols: parts.reduce((into, s) => addCounts(into, s.protocols ?? {}), {} as Record<string, number>) }
      : {}),
    ...(http2 ? { http2 } : {}),
  };
}

/**
 * HTTP/2's counts of several snapshots: connections add up, the lowest stream limit a server set (null when none did).
 */
export function mergeHttp2(parts: ReadonlyArray<Pick<ShardSnapshot, 'http2'>>): ShardSnapshot['http2'] {
  const with_ = parts.flatMap((s) => (s.http2 ? [s.http2] : []));
  if (!with_.length) return undefined;
  const limits = with_.flatMap((h) => (h.serverMaxStreams === null ? [] : [h.serverMaxStreams]));
  return {
    connections: with_.reduce((n, h) => n + h.connections, 0),
    serverMaxStreams: limits.length ? Math.min(...limits) : null,
  };
}

function mergeStepSnapshots(parts: StepSnapshot[][]): StepSnapshot[] {
  return parts[0]!.map((first, i) => {
    const same = parts.map((p) => p[i]!);
    return {
      name: first.name,
      requests: same.reduce((n, s) => n + s.requests, 0),
      failed: same.reduce((n, s) => n + s.failed, 0),
      latencySumUs: same.reduce((n, s) => n + s.latencySumUs, 0),
      histogram: mergedHistogram(same.map((s) => s.histogram)),
      statusCodes: same.reduce((into, s) => addCounts(into, s.statusCodes), {} as Record<string, number>),
      captureFailures: same.reduce((n, s) => n + s.captureFailures, 0),
    };
  });
}
