// What a load test's shard reports and the database stores: its snapshots (every second, merged into
// the status and the results: domain/load/metrics/metrics.ts), each second's figures
// (domain/load/metrics/per-second.ts) and each step's (domain/load/scenario.ts). Shapes only: domain/load/ fills them,
// db/ stores them.
import type { Phase } from './phases.ts';

/** A count for each key: a status code, an error's kind, a protocol. */
export type Counts = Record<string, number>;

/** One second's figures as one report holds them (what it added since the previous one). */
export interface SecondFigures {
  second: number;
  sent: number;
  answered: number;
  failed: number;
  latencySumUs: number;
  latencyMaxUs: number;
  /** HDR histogram of the answers' latencies in µs, compressed base64 (absent: no answer). */
  histogram?: string;
  /** Answers by status code (answers with a status; socket errors and timeouts have none). */
  statusCodes?: Counts;
  /** Of the answers with a status: their count and the sums of their phases in µs (PHASES' order). */
  phased?: number;
  phaseSumUs?: number[];
  /**
   * Attempts that failed before their request was sent (domain/load/metrics/tally.ts): in none of the figures above.
   */
  connectionErrors?: number;
}

/**
 * Which seconds a shard attempt sent in, and its last pace (what a lost attempt's gap and loss are read
 * from: domain/load/restarts.ts).
 */
export interface Sending {
  first: number;
  last: number;
  /** The larger of the requests sent in the last second and in the one before it. */
  pace: number;
}

/** What each step's requests did: counts, latencies (µs) and status codes. */
export interface StepSnapshot {
  name: string;
  requests: number;
  failed: number;
  latencySumUs: number;
  histogram: string;
  statusCodes: Counts;
  /** Answers a capture found nothing in. */
  captureFailures: number;
}

/** Running totals of a shard; a stored snapshot is what the status and results are built from. */
export interface ShardSnapshot {
  /** Requests the target got (written on an open connection): successful + failed. */
  total: number;
  successful: number;
  failed: number;
  /**
   * Attempts that failed before their request was written (refused, reset or timed out while
   * connecting, TLS, DNS, the SSRF guard): in no other figure but `errors` (absent: none, or a
   * snapshot stored before they were counted apart).
   */
  connectionErrors?: number;
  bytesSent: number;
  bytesReceived: number;
  /** Sum of latencies, microseconds (the exact mean; the histogram's is bucketed). */
  latencySumUs: number;
  /** HDR histogram of latencies in microseconds, compressed base64. */
  histogram: string;
  statusCodes: Counts;
  errors: Counts;
  inFlight: number;
  /** Open model: arrivals not sent because every connection and the queue were busy. */
  dropped: number;
  /** This attempt stopped because a later one of the same shard had started (domain/load/restarts.ts). */
  superseded?: boolean;
  /** The test window's length in seconds, as the activity stores it (domain/load/restarts.ts bounds a gap by it). */
  windowSeconds?: number;
  /** The test's shards in all, as the activity stores it (the series waits for a report of each). */
  shards?: number;
  /** Epoch ms of the first request sent and of this snapshot. */
  firstSentAt: number | null;
  takenAt: number;
  /** The seconds it sent in and its last pace (domain/load/restarts.ts); absent before it sent anything. */
  sending?: Sending | null;
  /**
   * Each second's figures added since the previous snapshot (domain/load/metrics/per-second.ts): handed out once,
   * stored once beside the snapshot (db/load/load-test-shards.ts: writeShardReports), never in it, so a stored snapshot
   * keeps the same size however long the test runs.
   */
  newSeconds?: SecondFigures[];
  /**
   * HDR histograms (compressed base64, microseconds) of each phase of every request: DNS, connect,
   * TLS, time to first byte, transfer (domain/load/phases.ts). Absent in an empty snapshot.
   */
  phases?: Record<Phase, string>;
  /** A scenario's steps (domain/load/scenario.ts), in order. */
  steps?: StepSnapshot[];
  /** Answers by the protocol that gave them, as ALPN names it (http/1.1, h2). */
  protocols?: Counts;
  /** HTTP/2: the connections opened, and the lowest SETTINGS_MAX_CONCURRENT_STREAMS a server set (null: none). */
  http2?: { connections: number; serverMaxStreams: number | null };
}
