// The phases of a request and the figures kept of each, by name (domain/load/phases.ts measures
// them): what the API's thresholds may name, without the histograms that measure them.
export const PHASES = ['dns', 'connect', 'tls', 'ttfb', 'transfer'] as const;
export type Phase = (typeof PHASES)[number];

/** The percentiles of a latency a threshold may name, the total's (`p95`) as a phase's (`ttfb.p95`). */
export const LATENCY_PERCENTILES = { p50: 50, p75: 75, p90: 90, p95: 95, p99: 99, 'p99.9': 99.9 } as const;

/** Each figure and the percentile it reads (null: not a percentile). */
export const PHASE_STATS = { avg: null, ...LATENCY_PERCENTILES, max: null } as const;
export type PhaseStat = keyof typeof PHASE_STATS;
