// The charts of a load test's seconds, drawn on the server as inline SVG: the report's (load-report.ts)
// and an ended test's dashboard page (api/dashboard/load-tests/load-tests.ts) draw the same.
import type { ReportTest } from '../services/load-tests/load-report.ts';
import { chartFigures, COLORS, type ChartLine } from '../browser/load-figures.ts';
import { Html } from './html.ts';

/** What a chart of tests needs of each: its name on the lines (A or B beside another), its colour, its seconds. */
export interface ChartedTest {
  label: string;
  color: string;
  series: ReportTest['series'];
}

const known = (values: ReadonlyArray<number | null>) => values.some((v) => v !== null);

/**
 * The charts of one or two tests over their seconds: the requests sent, the latency's p50, p95 and
 * p99 (each second's, from its histograms; the mean and slowest for a test stored before seconds had
 * them) and the errors. One test's percentiles are told apart by colour; two tests' by their colour
 * and their dash (p50 dotted, p95 solid, p99 dashed).
 */
export function loadCharts(tests: ChartedTest[]): Html {
  const many = tests.length > 1;
  const name = (t: ChartedTest, what: string) => (many ? `${t.label} ${what}` : what);
  const percentiles = tests.every((t) => known(t.series.p95_response_time_per_second));
  const latency: ChartLine[] = tests.flatMap((t) => {
    const s = t.series;
    const line = (what: string, values: ReadonlyArray<number | null>, own: string, dash: ChartLine['dash']) => ({
      label: name(t, what),
      color: many ? t.color : own,
      dash: many ? dash : 'solid',
      values,
    });
    return percentiles
      ? [
          line('p50', s.p50_response_time_per_second, COLORS.p50, 'dotted'),
          line('p95', s.p95_response_time_per_second, COLORS.p95, 'solid'),
          line('p99', s.p99_response_time_per_second, COLORS.p99, 'dashed'),
        ]
      : [
          line('mean', s.avg_response_time_per_second, COLORS.p50, 'solid'),
          line('slowest', s.max_response_time_per_second, COLORS.p99, 'dashed'),
        ];
  });
  const each = (values: (t: ChartedTest) => number[], what: string): ChartLine[] =>
    tests.map((t) => ({ label: name(t, what), color: t.color, values: values(t) }));
  return new Html(
    chartFigures([
      {
        name: 'requests',
        caption: 'Requests sent each second',
        unit: 'req/s',
        whole: true,
        lines: each((t) => t.series.requests_per_second, 'sent'),
      },
      {
        name: 'latency',
        caption: percentiles
          ? 'Latency of the requests sent each second: p50, p95 and p99'
          : 'Latency of the requests sent each second: mean and slowest',
        unit: 'ms',
        lines: latency,
      },
      {
        name: 'errors',
        caption: 'Errors each second: failed answers and connection errors',
        unit: 'errors/s',
        unitOfOne: 'error/s',
        whole: true,
        lines: each((t) => t.series.errors_per_second, 'errors'),
      },
    ]),
  );
}
