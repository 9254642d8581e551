// The load pages' charts: round ticks with units on both axes, at least three of each, labels that fit
// the margins kept for them, gaps where a second is not known, and every chart of a page aligned.
import { describe, expect, it } from 'vitest';
import {
  CHART_FRAMES,
  chartFigures,
  formatSeconds,
  formatValue,
  textWidth,
  observedFigure,
  thresholdUnit,
  timeTicks,
  valueTicks,
} from '../../../../api/browser/load-figures.ts';

/** Whether `step` is 1, 2 or 5 times a power of ten. */
const round = (step: number) => {
  const mantissa = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
  return [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6);
};

describe('value ticks', () => {
  it('are round values from 0 to the first at or above the largest, as many as fit', () => {
    expect(valueTicks(111.11, 7)).toEqual([0, 20, 40, 60, 80, 100, 120]);
    expect(valueTicks(7, 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(valueTicks(7, 5)).toEqual([0, 2, 4, 6, 8]);
    expect(valueTicks(1850, 7)).toEqual([0, 500, 1000, 1500, 2000]);
    expect(valueTicks(0.37, 7)).toEqual([0, 0.1, 0.2, 0.3, 0.4]);
    expect(valueTicks(0, 7)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('of counts are whole numbers, 0 to 2 when there were none', () => {
    expect(valueTicks(0, 7, true)).toEqual([0, 1, 2]);
    expect(valueTicks(3, 7, true)).toEqual([0, 1, 2, 3]);
    expect(valueTicks(0.4, 7, true)).toEqual([0, 1, 2]);
    expect(valueTicks(390, 7, true)).toEqual([0, 100, 200, 300, 400]);
  });

  it('number at least 3 and at most the room, a round step apart, for any largest value', () => {
    for (let e = -3; e <= 6; e++)
      for (const m of [1, 1.1, 1.5, 2, 2.5, 3.3, 4.5, 5, 7, 9.99]) {
        const max = Number((m * 10 ** e).toPrecision(12));
        for (let most = 4; most <= 12; most++) {
          const ticks = valueTicks(max, most);
          expect(ticks.length, `${max} in ${most}`).toBeGreaterThanOrEqual(3);
          expect(ticks.length, `${max} in ${most}`).toBeLessThanOrEqual(most);
          expect(ticks.at(-1)!).toBeGreaterThanOrEqual(max);
          expect(round(ticks[1]! - ticks[0]!), `${max} in ${most}: ${ticks}`).toBe(true);
        }
      }
  });
});

describe('time ticks', () => {
  it('are round seconds, then whole minutes, up to the end of the axis', () => {
    expect(timeTicks(10, 8)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(timeTicks(9, 5)).toEqual([0, 2, 4, 6, 8]);
    expect(timeTicks(30, 13)).toEqual([0, 5, 10, 15, 20, 25, 30]);
    expect(timeTicks(600, 9)).toEqual([0, 120, 240, 360, 480, 600]);
    expect(timeTicks(3600, 6)).toEqual([0, 900, 1800, 2700, 3600]);
  });

  it('number at least 3 for any test of 2 s or more', () => {
    for (let end = 2; end <= 3600; end += end < 100 ? 1 : 37)
      for (let most = 5; most <= 14; most++) {
        const ticks = timeTicks(end, most);
        expect(ticks.length, `${end} in ${most}`).toBeGreaterThanOrEqual(3);
        expect(ticks.length).toBeLessThanOrEqual(most);
        expect(ticks.at(-1)!).toBeLessThanOrEqual(end);
      }
  });

  it('read as seconds on an axis of 2 minutes at most, else as minutes:seconds', () => {
    expect(formatSeconds(45, 120)).toBe('45 s');
    expect(formatSeconds(90, 600)).toBe('1:30');
    expect(formatSeconds(3600, 3600)).toBe('60:00');
  });
});

describe('tick labels', () => {
  it('carry their unit, the decimals the step needs, and seconds once latency reaches one', () => {
    expect(valueTicks(111.11, 7).map((v) => formatValue(v, 'ms', 20, 120))).toEqual([
      '0 ms',
      '20 ms',
      '40 ms',
      '60 ms',
      '80 ms',
      '100 ms',
      '120 ms',
    ]);
    expect([0, 500, 1000, 1500, 2000].map((v) => formatValue(v, 'ms', 500, 2000))).toEqual([
      '0 s',
      '0.5 s',
      '1 s',
      '1.5 s',
      '2 s',
    ]);
    expect(formatValue(0.30000000000000004, 'ms', 0.1, 0.4)).toBe('0.3 ms');
    expect(formatValue(15000, 'req/s', 5000)).toBe('15,000 req/s');
    // A count's unit after exactly 1 is its singular, when it has one.
    expect([0, 1, 2].map((v) => formatValue(v, 'errors/s', 1, 2, 'error/s'))).toEqual([
      '0 errors/s',
      '1 error/s',
      '2 errors/s',
    ]);
  });

  it("of a threshold's observed figure: the unit of its metric", () => {
    expect(thresholdUnit('p95 < 300')).toBe('ms');
    expect(thresholdUnit('ttfb.p95 < 200')).toBe('ms');
    expect(thresholdUnit('error_rate < 1')).toBe('%');
    expect(thresholdUnit('throughput > 100')).toBe('req/s');
    expect(thresholdUnit('seconds_without_traffic <= 2')).toBe('s');
    expect(thresholdUnit('total_requests > 1000')).toBe('');
  });

  it("writes a threshold's observed figure as every view shows it: grouped, two decimals, its unit on its line", () => {
    expect(observedFigure('p95 < 300', 1234.567)).toBe('1,234.57\u00a0ms');
    expect(observedFigure('error_rate < 1', 0)).toBe('0\u00a0%');
    expect(observedFigure('throughput > 100', 98)).toBe('98\u00a0req/s');
    expect(observedFigure('total_requests > 1000', 12345)).toBe('12,345');
  });
});

/** Each drawing of a chart's figure: its frame, its tick labels and their places, its lines. */
function drawings(figure: string) {
  return [...figure.matchAll(/<svg class="(\w+)".*?viewBox="0 0 (\d+) (\d+)".*?<\/svg>/gs)].map((m) => ({
    frame: m[1],
    width: Number(m[2]),
    ticks: (axis: 'x' | 'y') =>
      [...m[0].matchAll(new RegExp(`<text class="tick-${axis}" x="([\\d.]+)"[^>]*>([^<]+)</text>`, 'g'))].map((t) => ({
        x: Number(t[1]),
        text: t[2]!,
      })),
    lines: [...m[0].matchAll(/<polyline data-line="([^"]*)"[^>]*points="([^"]+)"/g)].map((l) => ({
      line: l[1],
      points: l[2]!.split(' ').map((p) => p.split(',').map(Number) as [number, number]),
    })),
    axisAt: Number(/<line x1="([\d.]+)" x2="\1" y1/.exec(m[0])![1]),
  }));
}

describe('a chart', () => {
  const seconds = (n: number, f: (i: number) => number | null) => Array.from({ length: n }, (_, i) => f(i));

  it('is drawn for each frame with at least 3 labelled ticks per axis, every label inside the drawing', () => {
    for (const [n, max] of [
      [10, 111.11],
      [30, 7],
      [600, 2500],
      [3600, 0.4],
    ] as const) {
      const figure = chartFigures([
        {
          name: 'latency',
          caption: 'Latency',
          unit: 'ms',
          lines: [{ label: 'p95', color: '#9a6700', values: seconds(n, (i) => (i === 3 ? max : max / 2)) }],
        },
      ]);
      const drawn = drawings(figure);
      expect(drawn.map((d) => d.frame)).toEqual(CHART_FRAMES.map((f) => f.name));
      for (const d of drawn) {
        const ys = d.ticks('y');
        const xs = d.ticks('x');
        expect(ys.length, `${n} s to ${max} ms, ${d.frame}`).toBeGreaterThanOrEqual(3);
        expect(xs.length, `${n} s to ${max} ms, ${d.frame}`).toBeGreaterThanOrEqual(3);
        for (const t of ys) {
          expect(t.text).toMatch(/^[\d.,]+ (ms|s)$/);
          expect(t.x - textWidth(t.text)).toBeGreaterThanOrEqual(0); // right-aligned at x: never cut on the left
        }
        for (const t of xs) {
          expect(t.text).toMatch(n <= 120 ? /^\d+ s$/ : /^\d+:\d\d$/);
          expect(t.x - textWidth(t.text) / 2).toBeGreaterThanOrEqual(0); // centred at x
          expect(t.x + textWidth(t.text) / 2).toBeLessThanOrEqual(d.width);
        }
      }
    }
  });

  it("draws an hour's seconds as at most one point per unit of width, keeping the peak", () => {
    const figure = chartFigures([
      {
        name: 'requests',
        caption: 'Requests',
        unit: 'req/s',
        whole: true,
        lines: [{ label: 'sent', color: '#1f5fbf', values: seconds(3600, (i) => (i === 1234 ? 500 : 100)) }],
      },
    ]);
    for (const d of drawings(figure)) {
      const [line] = d.lines;
      expect(line!.points.length).toBeLessThanOrEqual(d.width - d.axisAt);
      expect(line!.points.length).toBeGreaterThan(d.width / 3);
      expect(Math.min(...line!.points.map(([, y]) => y))).toBe(12); // the spike at the top (500 is a tick)
      expect(Math.abs(line!.points[0]![0] - d.axisAt)).toBeLessThanOrEqual(1); // from the axis
    }
  });

  it('leaves a gap where a second is not known, and escapes its labels', () => {
    const figure = chartFigures([
      {
        name: 'latency',
        caption: '<b>',
        unit: 'ms',
        lines: [
          { label: '<script>', color: '#000', values: [1, 2, null, null, 3, 4] },
          { label: 'p99', color: '#111', values: [2, 3, 4, 5, 6, 7] },
        ],
      },
    ]);
    expect(figure).not.toContain('<script>');
    expect(figure).not.toContain('<b>');
    const [d] = drawings(figure);
    expect(d!.lines.map((l) => [l.line, l.points.length])).toEqual([
      ['&lt;script&gt;', 2],
      ['&lt;script&gt;', 2],
      ['p99', 6],
    ]);
    // A point alone is a dot.
    const alone = chartFigures([
      { name: 'rps', caption: 'Requests', unit: 'req/s', lines: [{ label: 'sent', color: '#000', values: [3] }] },
    ]);
    expect(alone.match(/<circle data-line="sent"/g)).toHaveLength(CHART_FRAMES.length);
  });

  it('of a page stand on one value axis, so that a second is at the same place on each', () => {
    const figure = chartFigures([
      { name: 'a', caption: 'A', unit: 'req/s', lines: [{ label: 'sent', color: '#000', values: [12000, 15000] }] },
      { name: 'b', caption: 'B', unit: '%', lines: [{ label: 'errors', color: '#000', values: [1, 2] }] },
    ]);
    const [a, b] = figure.split('\n').map(drawings);
    for (const [i, d] of a!.entries()) expect(b![i]!.axisAt).toBe(d.axisAt);
  });
});
