// Types of load-figures.js (plain JavaScript, so that the browser runs the same file the server does).

export interface ChartLine {
  label: string;
  color: string;
  dash?: 'solid' | 'dashed' | 'dotted';
  /** A value per point; null where it is not known (a gap in the line). */
  values: ReadonlyArray<number | null>;
}

export interface ChartSpec {
  /** The figure's name (data-chart) and caption. */
  name: string;
  caption: string;
  /** The values' unit: ms (shown in s past a second), req/s, %, ... */
  unit: string;
  lines: ChartLine[];
  /** The time of each point in seconds since the start; without it, point k is in the middle of second k. */
  xs?: readonly number[];
  /** The least the time axis spans, in seconds. */
  span?: number;
  /** The values are counts: ticks at whole numbers. */
  whole?: boolean;
}

export interface ChartFrame {
  name: string;
  width: number;
  height: number;
}

export const CHART_FRAMES: ChartFrame[];
export const CHART_CSS: string;
export const COLORS: { a: string; b: string; p50: string; p95: string; p99: string };
export function textWidth(text: string, size?: number): number;
export function niceStep(raw: number): number;
export function valueTicks(max: number, most: number, whole?: boolean): number[];
export function timeTicks(end: number, most: number): number[];
export function formatSeconds(s: number, end: number): string;
export function formatValue(v: number, unit: string, step: number, top?: number): string;
export function thresholdUnit(threshold: string): string;
export function chartFigures(specs: readonly ChartSpec[], frames?: readonly ChartFrame[]): string;
