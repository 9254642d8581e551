// A load test's report as one self-contained HTML file (api/services/load-tests/load-report.ts gives the data):
// inline CSS (api/pages/styles/), charts drawn as inline SVG on the server (load-charts.ts, which draws an ended
// test's charts on the dashboard too), no script, and a Content-Security-Policy that forbids every fetch, so the
// file opened from a disk years later shows the same and asks nothing of any network. On a phone the
// page takes the whole width, each chart shows its drawing for a phone, the phases and steps reflow to
// a block a row (tables.css), any other table wider than the page scrolls inside its own box. Two tests
// are shown side by side: their lines on the same charts, their figures in neighbouring columns.
import type { Context } from 'koa';
import type { LoadReport, ReportTest } from '../services/load-tests/load-report.ts';
import { html, Html } from './html.ts';
import { STYLES } from './styles.ts';
import { COLORS, observedFigure } from '../browser/load-figures.ts';
import { loadCharts } from './load-charts.ts';
import { plural } from '../../lib/load/plural.ts';

const TEST_COLORS = [COLORS.a, COLORS.b];
/** The report's CSS, inlined: its own with the tables' reflow, then the charts'. */
const CSS = STYLES['report.css'] + STYLES['charts.css'];

const fmt = (n: number | undefined | null) =>
  n === undefined || n === null ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: 2 });

/** The phases' names, and the statistics a phase table shows of each (a column per statistic). */
export const PHASE_NAMES: Record<string, string> = {
  dns: 'DNS',
  connect: 'Connect',
  tls: 'TLS',
  ttfb: 'Time to first byte',
  transfer: 'Transfer',
};
export const PHASE_COLUMNS = ['avg', 'p50', 'p95', 'p99', 'max'] as const;

const label = (t: ReportTest, i: number, many: boolean) => (many ? `${i === 0 ? 'A' : 'B'} ${t.test_id}` : t.test_id);
/** Two tests side by side: a column's letter (all a screen reader repeats), its test's id beneath, free to wrap. */
const columnHead = (t: ReportTest, i: number) =>
  html`<th class="n" abbr="${'AB'[i]}">${'AB'[i]} <small class="test-id">${t.test_id}</small></th>`;

/** Rows of figures, a column per test, and the change from A to B when there are two. */
function figures(tests: ReportTest[], rows: Array<[string, (t: ReportTest) => number | undefined | null]>): Html {
  const two = tests.length === 2;
  const heads = tests.map((t, i) => (two ? columnHead(t, i) : html`<th class="n">${t.test_id}</th>`));
  const row = ([name, get]: (typeof rows)[number]) => {
    const [a, b] = tests.map(get);
    const change =
      two && typeof a === 'number' && typeof b === 'number' && a !== 0
        ? `${b >= a ? '+' : ''}${fmt(((b - a) / a) * 100)}\u00a0%`
        : two
          ? '–'
          : null;
    const cells = tests.map((t) => html`<td class="n">${fmt(get(t))}</td>`);
    return html`<tr><td>${name}</td>${cells}${change !== null ? html`<td class="n">${change}</td>` : ''}</tr>`;
  };
  return html`<div class="scroll"><table><thead><tr><th>Figure</th>${heads}\
${two ? html`<th class="n">B against A</th>` : ''}</tr></thead><tbody>
${rows.map(row)}</tbody></table></div>`;
}

function counts(title: string, tests: ReportTest[], of: (t: ReportTest) => Record<string, number>): Html {
  const keys = [...new Set(tests.flatMap((t) => Object.keys(of(t))))].sort();
  if (keys.length === 0) return html`<h2>${title}</h2><p>None.</p>`;
  return html`<h2>${title}</h2>${figures(
    tests,
    keys.map((k) => [k, (t: ReportTest) => of(t)[k] ?? 0]),
  )}`;
}

function header(t: ReportTest, i: number, many: boolean): Html {
  const c = t.config;
  const stages = c.stages as Array<{ duration: number; target: number }> | undefined;
  const rate = c.requests_per_second ? ` at ${fmt(c.requests_per_second)} requests/s` : '';
  const shape = Array.isArray(stages)
    ? `stages of ${c.stage_target}: ${stages.map((s) => `${s.target} over ${s.duration} s`).join(', ')}`
    : `${plural(c.concurrent_users, 'user')} for ${fmt(c.test_duration)} s${rate}, ramp-up ${fmt(c.ramp_up_time)} s`;
  const spc = c.http2?.streams_per_connection ?? 1;
  const limit = t.http2?.server_max_concurrent_streams ?? null;
  const limited =
    limit !== null && limit < spc
      ? html` <strong data-limit="${limit}">The server allowed only ${plural(limit, 'stream')} at once per \
connection</strong>: the other users waited for one.`
      : '';
  const users = spc === 1 ? 'a connection per user' : `${fmt(spc)} users per connection`;
  const opened = t.http2 ? `: ${plural(t.http2.connections, 'connection')} opened` : '';
  const protocol = c.http_version === '2' ? html` Over HTTP/2, ${users}${opened}.${limited}` : '';
  const verdict = t.verdict
    ? html`, <span class="${t.verdict === 'passed' ? 'pass' : 'fail'}" data-verdict="${t.verdict}">${t.verdict}</span>`
    : '';
  const ending = html`${t.failure_reason ? html` ${t.failure_reason}.` : ''}\
${t.aborted_by ? html` Stopped by the threshold <code>${t.aborted_by}</code>.` : ''}`;
  return html`<section data-test="${t.test_id}"><h2><i class="swatch" style="background:${TEST_COLORS[i]}"></i>\
${label(t, i, many)}: ${t.status}${verdict}</h2>
<p><code>${c.http_method} ${c.target_url}</code>: ${shape}.${protocol} From ${t.started_at ?? '–'} to \
${t.completed_at ?? '–'}.${ending}</p>
${thresholdTable(t)}</section>`;
}

/** A test's thresholds: each with the figure observed and its outcome. */
function thresholdTable(t: ReportTest): Html {
  if (!t.thresholds.length) return html``;
  const rows = t.thresholds.map(
    (
      th,
    ) => html`<tr><td><code>${th.threshold}</code></td><td class="n">${observedFigure(th.threshold, th.observed)}</td>\
<td class="${th.pass ? 'pass' : 'fail'}">${th.pass ? 'pass' : 'fail'}</td></tr>`,
  );
  return html`<div class="scroll"><table><thead><tr><th>Threshold</th><th class="n">Observed</th>\
<th>Outcome</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

const STEP_COLUMNS = ['Requests', 'Failed', 'Captures that found nothing', 'Average', 'p95', 'p99', 'Max'];

/** The steps of scenario tests: a table of each test's steps, a row per step. */
function stepsSection(tests: ReportTest[], many: boolean): Html {
  if (!tests.some((t) => t.steps.length)) return html``;
  const head = html`<th>Step</th>${STEP_COLUMNS.map((c) => html`<th class="n">${c}</th>`)}`;
  const row = (st: ReportTest['steps'][number]) =>
    html`<tr><td data-label="Step">${st.step}. ${st.name}</td>${[
      st.requests,
      st.failed_requests,
      st.capture_failures,
      st.avg_response_time,
      st.p95_response_time,
      st.p99_response_time,
      st.max_response_time,
    ].map((n, j) => html`<td class="n" data-label="${STEP_COLUMNS[j]}">${fmt(n)}</td> `)}</tr>`;
  return html`<h2>Steps (times in ms)</h2>${tests.map((t, i) =>
    t.steps.length
      ? html`<p>${label(t, i, many)}</p><div class="scroll"><table class="reflow wide steps">\
<thead><tr>${head}</tr></thead>\
<tbody>${t.steps.map(row)}</tbody></table></div>`
      : '',
  )}`;
}

/** The phases of the tests: a row per phase (and test, when two), a column per statistic. */
function phaseTable(tests: ReportTest[]): Html {
  const two = tests.length === 2;
  const rows = Object.entries(PHASE_NAMES).flatMap(([phase, name]) =>
    tests.map((t, i) => {
      const figures = t.phases?.[phase];
      const cells = PHASE_COLUMNS.map((st) => html`<td class="n" data-label="${st}">${fmt(figures?.[st])}</td> `);
      return html`<tr>${i === 0 ? html`<th scope="row"${two ? html` rowspan="2"` : ''}>${name}</th>` : ''}\
${two ? html`<td data-label="Test">${label(t, i, true).slice(0, 1)}</td>` : ''}${cells}</tr>`;
    }),
  );
  return html`<div class="scroll"><table id="phases" class="reflow"><thead><tr><th>Phase</th>\
${two ? html`<th>Test</th>` : ''}${PHASE_COLUMNS.map((st) => html`<th class="n">${st}</th>`)}</tr></thead>\
<tbody>${rows}</tbody></table></div>`;
}

/** Policy of the report, in its header and in the file: nothing may be fetched. */
const POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** Answers the report as an HTML file a browser shows and can save. */
export function sendReport(ctx: Context, report: LoadReport): void {
  ctx.type = 'html';
  // Private data: never cached, never framed (frame-ancestors works only in the header).
  ctx.set('Content-Security-Policy', `${POLICY}; frame-ancestors 'none'`);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
  ctx.set(
    'Content-Disposition',
    `inline; filename="load-test-${report.tests.map((t) => t.test_id).join('-vs-')}.html"`,
  );
  ctx.body = loadReportPage(report);
}

export function loadReportPage(report: LoadReport): string {
  const { tests } = report;
  const many = tests.length > 1;
  const title = many ? `Load tests ${tests.map((t) => t.test_id).join(' and ')}` : `Load test ${tests[0]!.test_id}`;
  const s = (k: keyof ReportTest['summary']) => (t: ReportTest) => t.summary[k];
  const unreachable = tests.flatMap((t, i) =>
    t.verdict_reason === 'target_unreachable'
      ? [
          html`<p class="fail" role="alert" data-verdict-reason="target_unreachable">\
<strong>${many ? `${label(t, i, many)} failed` : 'Failed'}\
: target unreachable</strong>, nothing was measured: ${t.verdict_detail ?? 'every attempt failed'}.</p>`,
        ]
      : [],
  );
  const body = html`<main><h1>${title}</h1>${unreachable}\
<p>Report made ${report.generated_at} by netops. Times in milliseconds.</p>
${tests.map((t, i) => header(t, i, many))}
<h2>Figures</h2>
${figures(tests, [
  ['Requests', s('total_requests')],
  ['Failed', s('failed_requests')],
  ['Connection errors (not sent)', s('connection_errors')],
  ['Error rate (%)', s('error_rate')],
  ['Throughput (requests/s)', s('throughput')],
  ['Duration (s)', s('duration_seconds')],
  ['Average', s('avg_response_time')],
  ['p50', s('p50_response_time')],
  ['p75', s('p75_response_time')],
  ['p90', s('p90_response_time')],
  ['p95', s('p95_response_time')],
  ['p99', s('p99_response_time')],
  ['Max', s('max_response_time')],
  ['Dropped (open model)', s('dropped_requests')],
  ['Lost with a worker', s('requests_lost')],
  ['Shard restarts', s('shard_restarts')],
  ['Seconds without traffic', s('seconds_without_traffic')],
  ['Bytes sent', s('total_bytes_sent')],
  ['Bytes received', s('total_bytes_received')],
])}
<h2>Over time</h2>
${loadCharts(tests.map((t, i) => ({ label: i === 0 ? 'A' : 'B', color: TEST_COLORS[i]!, series: t.series })))}
<p>Each second's figures are in the test's series (<code>GET /api/v1/load-testing/series/{test_id}\
</code>); the whole test's percentiles are under Figures, from histograms merged exactly across shards.</p>
<h2>Phases (ms)</h2>
${
  tests.some((t) => t.phases)
    ? phaseTable(tests)
    : html`<p>Not recorded for \
${many ? 'these tests' : 'this test'} (run before phases existed).</p>`
}
${stepsSection(tests, many)}
${counts('Answers by protocol', tests, (t) => t.protocols)}
${counts('Status codes', tests, (t) => t.status_codes)}
${counts('Errors by kind', tests, (t) => t.errors)}
<h2>Configuration</h2>${tests.map(
    (t, i) => html`<p>${label(t, i, many)}</p>\
<pre>${JSON.stringify(t.config, null, 2)}</pre>`,
  )}
</main>`;
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8">\
<meta http-equiv="Content-Security-Policy" content="${POLICY}">\
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>\
<style>${new Html(CSS)}</style></head><body>${body}</body></html>`}`;
}
