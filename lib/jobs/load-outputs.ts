// A load test's metrics outputs, as the API, the workflow and the load pool's sender agree on them
// (activities/load/outputs.ts sends; docs/load-testing.md "Outputs").

/** A remote-write output as the test's sender gets it; `index`: its place in the start body's `outputs`. */
export interface RemoteWriteTarget {
  index: number;
  url: string;
  headers: Record<string, string>;
  intervalSeconds: number;
}

/** A metrics output as the test's config shows it (header names only: their values may be credentials). */
export type LoadOutputConfig =
  | { type: 'prometheus_remote_write'; url: string; header_names: string[]; interval_seconds: number }
  | { type: 'ndjson' | 'csv' };

/**
 * How a remote-write output has fared: writes the receiver took, writes that failed (after retries), the
 * last failure.
 */
export interface LoadOutputState {
  writes: number;
  errors: number;
  last_error: string | null;
  last_write_at: string | null;
}
