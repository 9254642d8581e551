// The shipped Grafana dashboard (docs/grafana/load-test.json) against what an output sends: every
// metric it queries is one an output writes; its rates are taken over $__rate_interval with each
// query's min step the Write interval variable (so the window is 4 writes, not the data source's
// default minute), whose default is the outputs' own; its latency and failure panels plot the
// write interval's figures, with the figures of the test so far beside them. (Each query is run
// against a real Prometheus in test/integration/load-outputs.test.ts.)
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { outputsSchema } from '../../../../contract/load/load-outputs.ts';
import { OUTPUT_METRICS } from '../../../../domain/load/metrics/outputs.ts';

interface Target {
  expr: string;
  interval?: string;
}
interface Panel {
  id: number;
  title: string;
  targets: Target[];
  gridPos: { x: number; y: number; w: number; h: number };
}

const dashboard = JSON.parse(fs.readFileSync('docs/grafana/load-test.json', 'utf8')) as {
  panels: Panel[];
  templating: { list: Array<{ name: string; query?: unknown; current?: { value: string } }> };
};
const targets = dashboard.panels.flatMap((p) => p.targets.map((t) => ({ ...t, panel: p.title })));
const exprsOf = (match: RegExp) =>
  dashboard.panels.filter((p) => match.test(p.title)).flatMap((p) => p.targets.map((t) => t.expr));

describe('the Grafana dashboard', () => {
  it('queries only metrics an output sends', () => {
    const names = new Set(targets.flatMap((t) => t.expr.match(/\bnetops_[a-z_]+/g) ?? []));
    expect(names.size).toBeGreaterThanOrEqual(8);
    for (const name of names) expect(OUTPUT_METRICS, name).toContain(name);
  });

  it("takes rates over $__rate_interval, each query's min step the Write interval, 5 s unless changed", () => {
    for (const t of targets) {
      expect(t.interval, t.expr).toBe('$write_interval');
      for (const range of t.expr.match(/\[[^\]]*\]/g) ?? []) expect(range, t.expr).toBe('[$__rate_interval]');
    }
    const variable = dashboard.templating.list.find((v) => v.name === 'write_interval')!;
    const [output] = outputsSchema.parse([{ type: 'prometheus_remote_write', url: 'https://p.example/w' }]);
    expect(variable.current?.value).toBe(`${(output as { interval_seconds: number }).interval_seconds}s`);
    // Common write intervals to pick from (a custom variable: values separated by commas).
    expect(String(variable.query).split(',')).toEqual(['1s', '2s', '5s', '10s', '15s', '30s', '1m']);
  });

  it("plots the write interval's latency and failures, and the test so far's latency beside them", () => {
    expect(exprsOf(/^Latency per write interval/)).toEqual([
      expect.stringMatching(/^netops_http_req_duration_interval_seconds\{/),
    ]);
    expect(exprsOf(/^Failed requests per write interval/)).toEqual([
      expect.stringMatching(/^netops_http_req_failed_interval_rate\{/),
    ]);
    expect(exprsOf(/^Latency of the test so far/)).toEqual([
      expect.stringMatching(/^netops_http_req_duration_seconds\{/),
    ]);
  });

  it('lays its panels out without overlap, with unique ids', () => {
    const panels = dashboard.panels;
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const [i, a] of panels.entries())
      for (const b of panels.slice(i + 1)) {
        const apart =
          a.gridPos.x + a.gridPos.w <= b.gridPos.x ||
          b.gridPos.x + b.gridPos.w <= a.gridPos.x ||
          a.gridPos.y + a.gridPos.h <= b.gridPos.y ||
          b.gridPos.y + b.gridPos.h <= a.gridPos.y;
        expect(apart, `${a.title} / ${b.title}`).toBe(true);
      }
  });
});
