// The columns of a load test's per-second series, as the series endpoint streams them (a CSV's header
// row, an NDJSON object's keys); domain/load/metrics/series.ts computes each row.
import { PHASES } from '../../lib/load/phases.ts';

/** The percentiles of each second's latency the series gives. */
export const SERIES_PERCENTILES = { p50: 50, p90: 90, p95: 95, p99: 99 } as const;
export const STATUS_CLASSES = ['2', '3', '4', '5'] as const;

export const SERIES_COLUMNS = [
  'second',
  'time',
  'users',
  'requests',
  'answered',
  'failed',
  'error_rate',
  'avg_response_time',
  ...(Object.keys(SERIES_PERCENTILES) as Array<keyof typeof SERIES_PERCENTILES>).map(
    (p) => `${p}_response_time` as const,
  ),
  'max_response_time',
  ...STATUS_CLASSES.map((c) => `status_${c}xx` as const),
  'errors',
  'connection_errors',
  ...PHASES.map((p) => `${p}_avg` as const),
] as const;
