// What a load test's figures are (domain/load/metrics/metrics.ts makes them from the shards' snapshots): the
// live totals of a running test, and the results of an ended one, with its verdict.

export interface ThresholdOutcome {
  threshold: string;
  observed: number;
  pass: boolean;
}

/** The totals of a running test (domain/load/metrics/metrics.ts builds them from the shard snapshots). */
export interface LiveMetrics {
  total_requests: number;
  successful_requests: number;
  failed_requests: number;
  avg_response_time: number;
  throughput: number;
  /** Failed attempts (connection errors too) as a percentage of attempts. */
  error_rate: number;
  /** Attempts that failed before their request was sent (refused, TLS, DNS...): not in the requests above. */
  connection_errors: number;
}

/** A finished test's results: times in milliseconds, error_rate a percentage of requests. */
export interface FinalResults extends LiveMetrics {
  total_bytes_sent: number;
  total_bytes_received: number;
  min_response_time: number;
  max_response_time: number;
  p50_response_time: number;
  p75_response_time: number;
  p90_response_time: number;
  p95_response_time: number;
  p99_response_time: number;
  /** Beyond the contract: */
  duration_seconds: number;
  status_codes: Record<string, number>;
  errors: Record<string, number>;
  /** Open model: arrivals not sent because every connection and the queue were busy. */
  dropped_requests: number;
  /**
   * Shard attempts that died (their worker was lost), and how many requests they sent that no snapshot
   * counted answered (domain/load/restarts.ts: lostBy; from their last count of what they sent).
   */
  shard_failures: number;
  requests_lost: number;
  /** Dead attempts another one took over, and the longest run of seconds a shard sent nothing meanwhile. */
  shard_restarts: number;
  seconds_without_traffic: number;
  /** Each restart: the shard, the attempt that took over, its seconds without traffic and requests lost. */
  restarts?: Array<{ shard: number; attempt: number; seconds_without_traffic: number; requests_lost: number }>;
  /** Requests sent in each second of the test. */
  requests_per_second: number[];
  /**
   * Of the requests sent in each second (same index): the percentage that failed, their mean and
   * their slowest latency in ms, merged exactly across shards (each second's percentiles are in the
   * series: domain/load/metrics/series.ts).
   */
  error_rate_per_second: number[];
  avg_response_time_per_second: number[];
  max_response_time_per_second: number[];
  /** Failed answers and connection errors of each second (results stored before it lack it). */
  errors_per_second?: number[];
  /**
   * Each second's latency percentiles in ms, from its histograms merged across shards, as the series
   * gives them (null for a second without them); results stored before they were kept lack them.
   */
  p50_response_time_per_second?: Array<number | null>;
  p95_response_time_per_second?: Array<number | null>;
  p99_response_time_per_second?: Array<number | null>;
  /** With steps: each step's requests, failures, captures that found nothing, latency and status codes. */
  steps?: Array<{
    step: number;
    name: string;
    requests: number;
    failed_requests: number;
    error_rate: number;
    capture_failures: number;
    avg_response_time: number;
    p50_response_time: number;
    p95_response_time: number;
    p99_response_time: number;
    max_response_time: number;
    status_codes: Record<string, number>;
  }>;
  /** Answers by the protocol that gave them, as ALPN names it: http/1.1, http/1.0, h2. */
  protocols?: Record<string, number>;
  /** HTTP/2: connections opened, and the lowest SETTINGS_MAX_CONCURRENT_STREAMS a server set (null: none). */
  http2?: { connections: number; server_max_concurrent_streams: number | null };
  /** Per phase of the answered requests (dns, connect, tls, ttfb, transfer): avg, p50, p90, p95, p99, max in ms. */
  phases?: Record<string, Record<string, number>>;
  /** With thresholds: each one's observed figure and outcome, the verdict, and the threshold that aborted the test. */
  thresholds?: ThresholdOutcome[];
  verdict?: 'passed' | 'failed';
  /**
   * Why it failed (every attempt failing comes first, thresholds or not), and in words
   * (domain/load/metrics/verdict.ts).
   */
  verdict_reason?: 'target_unreachable' | 'thresholds';
  verdict_detail?: string;
  aborted_by?: string;
}
