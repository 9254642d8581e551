// How the load-test pages draw and label their figures: line charts as SVG text, and the unit of each
// figure. No DOM (and no import but the counts' words), so that one code draws every chart: the
// server for the report (a file with no script) and for an ended test's page, the browser for a
// running test's page (bundled into /dashboard/assets/load-chart.js). Ticks are round (1, 2 or 5
// times a power of ten, or whole minutes) with their unit; the margins are measured from the labels
// they hold, so a label is never cut; each chart is drawn for a phone, a medium and a wide box, and
// CSS shows the one that fits its box, so the text keeps about the size it was drawn at.

import { noun } from '../../lib/load/plural.ts';

/** Text size of the labels, in units of the drawing (a pixel when the drawing is shown at its width). */
const FONT = 13;
/** Least room between two value ticks, so their labels never touch. */
const TICK_GAP_Y = 24;

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
  /** The unit after a value of exactly 1, when a count's word changes (`error/s` beside `errors/s`). */
  unitOfOne?: string;
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

/** The drawings of a chart: CSS shows the one for its box's width (api/pages/styles/charts.css). */
export const CHART_FRAMES: ChartFrame[] = [
  { name: 'narrow', width: 340, height: 250 },
  { name: 'medium', width: 560, height: 250 },
  { name: 'wide', width: 820, height: 260 },
];

/** Line colours: the report's two tests, and a test's p50, p95, p99. */
export const COLORS = { a: '#1f5fbf', b: '#c2410c', p50: '#1a7f37', p95: '#9a6700', p99: '#a40e26' };
/** Dash patterns a line may take (a second test's percentiles, told apart by them). */
const DASHES: Record<string, string> = { solid: '', dashed: '7 4', dotted: '2 3' };

const esc = (s: unknown) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The width `text` takes at `size`, over-estimated a little (the server cannot measure a font): the
 * widest common system-ui, DejaVu Sans, has digits of 0.64 em, capitals of 0.68, lower-case letters
 * of 0.55 (m and w 0.9), punctuation and spaces of 0.3.
 */
export function textWidth(text: unknown, size = FONT): number {
  let em = 0;
  for (const c of String(text)) {
    if (/[mwMW%]/.test(c)) em += 0.92;
    else if (/[0-9]/.test(c)) em += 0.66;
    else if (/[A-Z]/.test(c)) em += 0.72;
    else if (/[a-z]/.test(c)) em += 0.58;
    else em += 0.36;
  }
  return Math.ceil(em * size);
}

/** The smallest 1, 2 or 5 times a power of ten at or above `raw`. */
export function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((n) => n >= raw * (1 - 1e-9))!;
}

/** `n` without the binary fraction's noise (0.30000000000000004 is 0.3). */
const clean = (n: number) => Number(n.toPrecision(12));

/**
 * Round ticks from 0 up to the first at or above `max`, one round step apart, as many as fit in `most`
 * (at least 4, which gives at least 3 ticks for any max above 0): 0..111.11 in 7 is 0, 20, ... 120.
 * `whole`: the values are counts, and so is every tick (0, 1, 2 for none at all).
 */
export function valueTicks(max: number, most: number, whole = false): number[] {
  const top = Math.max(max > 0 ? max : 1, whole ? 2 : 0);
  const limit = Math.max(4, Math.floor(most));
  let step = Math.max(niceStep(top / (limit - 1)), whole ? 1 : 0);
  while (Math.ceil(top / step - 1e-9) + 1 > limit) step = niceStep(step * 1.5);
  const count = Math.max(1, Math.ceil(top / step - 1e-9));
  return Array.from({ length: count + 1 }, (_, i) => clean(i * step));
}

/** Steps between time ticks: seconds, then whole minutes. */
const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600];

/**
 * Ticks at round seconds from 0 to `end` (the axis ends there, on a tick or not), as many as fit in
 * `most` (at least 5, which gives at least 3 ticks once `end` is 2 s or more).
 */
export function timeTicks(end: number, most: number): number[] {
  const limit = Math.max(5, Math.floor(most));
  const step = TIME_STEPS.find((s) => Math.floor(end / s + 1e-9) + 1 <= limit) ?? 3600 * Math.ceil(end / 3600 / limit);
  return Array.from({ length: Math.floor(end / step + 1e-9) + 1 }, (_, i) => i * step);
}

/** Seconds as a time axis shows them: `45 s` on an axis of 2 minutes or less, else minutes:seconds (`12:30`). */
export function formatSeconds(s: number, end: number): string {
  if (end <= 120) return `${clean(s)} s`;
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

/**
 * A tick's label: the value with as many decimals as the axis's step needs, thousands grouped, and
 * its unit (`one` after exactly 1: `1 error/s`); milliseconds become seconds on an axis that reaches
 * a second (`1.5 s`, not `1,500 ms`).
 */
export function formatValue(v: number, unit: string, step: number, top = v, one = unit): string {
  const [n, u, s] = unit === 'ms' && top >= 1000 ? [v / 1000, 's', step / 1000] : [v, unit, step];
  const decimals = Math.max(0, Math.min(6, Math.ceil(-Math.log10(s) - 1e-9)));
  const text = n.toLocaleString('en-US', { maximumFractionDigits: decimals });
  return u ? `${text} ${u === unit ? noun(n, one, unit) : u}` : text;
}

/**
 * The unit of a threshold's observed figure, by its metric (the threshold as results write it,
 * `p95 < 300`): times in ms, rates in %, throughput in req/s, counts none.
 */
export function thresholdUnit(threshold: string): string {
  const metric = String(threshold).trim().split(/\s/)[0];
  if (metric === 'error_rate' || metric === 'status_5xx_rate') return '%';
  if (metric === 'throughput') return 'req/s';
  if (metric === 'seconds_without_traffic') return 's';
  if (metric === 'total_requests' || metric === 'connection_errors' || metric === 'shard_restarts') return '';
  return 'ms';
}

/**
 * A threshold's observed figure with its unit, as every view writes it, the page drawn on the server
 * and its live redraw alike: grouped, up to two decimals, the unit kept on the figure's line
 * (`1,234.5 ms`, `0 %`, `98 req/s`).
 */
export function observedFigure(threshold: string, value: number): string {
  const unit = thresholdUnit(threshold);
  const figure = value.toLocaleString('en-US', { maximumFractionDigits: 2 });
  return unit ? `${figure}\u00a0${unit}` : figure;
}

/**
 * A line's points at most one per `per` values, each the highest of those it stands for (a peak is
 * never lost), at the middle of their times; null where none of them has a value (a gap in the line).
 */
function pointsOf(values: ChartLine['values'], xs: (k: number) => number, per: number) {
  const out: Array<[number, number | null]> = [];
  for (let i = 0; i < values.length; i += per) {
    const part = values.slice(i, i + per).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    const last = Math.min(values.length, i + per) - 1;
    out.push([(xs(i) + xs(last)) / 2, part.length ? Math.max(...part) : null]);
  }
  return out;
}

/** The legend's entries laid out in rows within `width`: [x, row, line] of each. */
function legendLayout(lines: readonly ChartLine[], width: number) {
  const placed: Array<[number, number, ChartLine]> = [];
  let x = 0;
  let row = 0;
  for (const line of lines) {
    const w = 26 + textWidth(line.label);
    if (x > 0 && x + w > width) {
      x = 0;
      row += 1;
    }
    placed.push([x, row, line]);
    x += w + 14;
  }
  return { placed, rows: placed.length ? row + 1 : 0 };
}

/** A drawing's value axis and what sets it: the legend's rows above, the ticks and the labels' room. */
function valueAxis(spec: ChartSpec, frame: ChartFrame) {
  const { lines, unit, unitOfOne } = spec;
  const legend = legendLayout(lines.length > 1 ? lines : [], frame.width - 16);
  const T = legend.rows ? 12 + legend.rows * 18 : 12;
  const plotH = frame.height - T - 46;
  const known = lines.flatMap((l) => l.values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)));
  const ticks = valueTicks(Math.max(0, ...known), Math.floor(plotH / TICK_GAP_Y) + 1, spec.whole);
  const top = ticks[ticks.length - 1]!;
  const labels = ticks.map((v) => formatValue(v, unit, ticks[1]! - ticks[0]!, top, unitOfOne));
  // Room for the widest label left of the axis.
  return { legend, T, plotH, ticks, top, labels, left: Math.max(...labels.map((t) => textWidth(t))) + 12 };
}

/**
 * One drawing of a line chart, `width` × `height` units, its value axis `left` units or more from
 * the edge. `lines`: each a label, a colour, a dash (solid, dashed, dotted) and its values (null: not
 * known, a gap); the value at index k is at time `xs[k]` seconds, or, without xs, in the middle of
 * second k (the axis then spans the seconds). `span`: the least the time axis shows (a running test's
 * duration); `whole`: the values are counts.
 */
function drawing(spec: ChartSpec, frame: ChartFrame, left = 0): string {
  const { unit, lines, xs, span = 0 } = spec;
  const { name, width: W, height: H } = frame;
  const count = Math.max(0, ...lines.map((l) => l.values.length));
  const at = xs ? (k: number) => xs[k] ?? k : (k: number) => k + 0.5;
  const end = Math.max(span, xs ? Math.max(0, ...xs) : count, 1);
  const { legend, T, plotH, ticks: yTicks, top, labels: yLabels, left: own } = valueAxis(spec, frame);
  // Room for half of the widest time label right of the time axis.
  const L = Math.max(left, own);
  const R = Math.ceil(textWidth(formatSeconds(end, end)) / 2) + 6;
  const plotW = W - L - R;
  const xTicks = timeTicks(end, Math.floor(plotW / (textWidth(formatSeconds(end, end)) + 16)) + 1);
  const x = (s: number) => (L + (s / end) * plotW).toFixed(1);
  const y = (v: number) => (T + plotH * (1 - v / top)).toFixed(1);
  const parts: string[] = [];
  yTicks.forEach((v, i) => {
    const color = v === 0 ? '#57606a' : '#d8dee4';
    parts.push(`<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="${color}"/>`);
    parts.push(
      `<text class="tick-y" x="${L - 6}" y="${(Number(y(v)) + 4.5).toFixed(1)}" text-anchor="end">\
${esc(yLabels[i])}</text>`,
    );
  });
  parts.push(`<line x1="${L}" x2="${L}" y1="${T}" y2="${T + plotH}" stroke="#57606a"/>`);
  for (const s of xTicks) {
    const px = x(s);
    parts.push(`<line x1="${px}" x2="${px}" y1="${T + plotH}" y2="${T + plotH + 5}" stroke="#57606a"/>`);
    parts.push(
      `<text class="tick-x" x="${px}" y="${T + plotH + 19}" text-anchor="middle">${esc(formatSeconds(s, end))}</text>`,
    );
  }
  const axis = end <= 120 ? 'seconds since the start' : 'minutes:seconds since the start';
  parts.push(`<text class="axis-x" x="${L + plotW / 2}" y="${H - 7}" text-anchor="middle">${axis}</text>`);
  for (const [lx, row, line] of legend.placed) {
    const ly = 14 + row * 18;
    parts.push(
      `<g class="legend"><line x1="${8 + lx}" x2="${28 + lx}" y1="${ly - 4}" y2="${ly - 4}" stroke="\
${esc(line.color)}" stroke-width="2.5"${dashOf(line)}/>`,
      `<text x="${32 + lx}" y="${ly}">${esc(line.label)}</text></g>`,
    );
  }
  // At most a point per unit of width (more draw nothing more), every line bucketed alike.
  const per = Math.max(1, Math.ceil(count / plotW));
  for (const line of lines) {
    let run: string[] = [];
    // A point alone (the first of a running test, or one between gaps) is a dot: a line of one point draws nothing.
    const flush = () => {
      if (run.length === 1) {
        const [cx, cy] = run[0]!.split(',');
        parts.push(`<circle data-line="${esc(line.label)}" cx="${cx}" cy="${cy}" r="2.5" fill="${esc(line.color)}"/>`);
      } else if (run.length)
        parts.push(
          `<polyline data-line="${esc(line.label)}" fill="none" stroke="${esc(line.color)}" stroke-width="2"\
${dashOf(line)} stroke-linejoin="round" points="${run.join(' ')}"/>`,
        );
      run = [];
    };
    for (const [s, v] of pointsOf(line.values, at, per)) {
      if (v === null) flush();
      else run.push(`${x(s)},${y(v)}`);
    }
    flush();
  }
  const label = `${spec.caption} (${unit}; time across in seconds since the start)`;
  return `<svg class="${esc(name)}" role="img" aria-label="${esc(label)}" viewBox="0 0 ${W} \
${H}" font-size="${FONT}" font-family="system-ui,sans-serif" fill="#1b1f24" xmlns="http://www.w3.org/2000/svg">\
${parts.join('')}</svg>`;
}

const dashOf = (line: ChartLine) => (line.dash && DASHES[line.dash] ? ` stroke-dasharray="${DASHES[line.dash]}"` : '');

/**
 * Charts as figures, each its caption and then a drawing for each frame (CHART_FRAMES by default,
 * which charts.css picks from by the box's width; the running page draws one frame at its box's
 * width). The charts' value axes stand at the same place, so that a second is at the same place on
 * each of them.
 */
export function chartFigures(specs: readonly ChartSpec[], frames: readonly ChartFrame[] = CHART_FRAMES): string {
  const left = frames.map((f) => Math.max(0, ...specs.map((spec) => valueAxis(spec, f).left)));
  return specs
    .map(
      (spec) =>
        `<figure class="load-chart" data-chart="${esc(spec.name)}">\
<figcaption>${esc(spec.caption)}</figcaption>${frames.map((f, i) => drawing(spec, f, left[i])).join('')}</figure>`,
    )
    .join('\n');
}
