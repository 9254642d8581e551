// A load test's report as one self-contained HTML file (api/services/load-report.ts gives the data):
// inline CSS, charts drawn as inline SVG on the server, no script, and a Content-Security-Policy that
// forbids every fetch, so the file opened from a disk years later shows the same and asks nothing of
// any network. On a phone the page takes the whole width and a table wider than it scrolls inside its
// own box. Two tests are shown side by side: their lines on the same charts, their figures in
// neighbouring columns with the change.
import type { Context } from 'koa';
import type { LoadReport, ReportTest } from '../services/load-report.ts';
import { html, Html } from './html.ts';

const COLORS = ['#1f5fbf', '#c2410c'];
const CSS = `
:root{font-family:system-ui,sans-serif;line-height:1.45;color:#1b1f24}
body{margin:0;background:#f6f7f9}main{max-width:64rem;margin:1.5rem auto;padding:1.5rem;background:#fff;border:1px solid #d0d7de;border-radius:8px}
h1{font-size:1.4rem;margin:0 0 .5rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}.scroll{overflow-x:auto}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #d0d7de}
td.n{text-align:right}.pass{color:#116329;font-weight:700}.fail{color:#a40e26;font-weight:700}
figure{margin:1rem 0}figcaption{font-weight:600}svg{width:100%;height:auto;background:#fbfcfd;border:1px solid #e4e8ec}
.legend span{display:inline-block;margin-right:1rem}.swatch{display:inline-block;width:1.5rem;height:.25rem;vertical-align:middle;margin-right:.3rem}
pre{background:#eef1f4;padding:.6rem;overflow:auto;font-size:.85rem}code{background:#eef1f4;padding:0 .2rem}
svg.narrow{display:none}
@media (max-width:40rem){main{margin:0;padding:.75rem;border:0;border-radius:0}table{font-size:.9rem}svg.wide{display:none}svg.narrow{display:block}}`;

const fmt = (n: number | undefined | null) =>
  n === undefined || n === null
    ? '–'
    : Number.isInteger(n)
      ? n.toLocaleString('en-US')
      : n.toLocaleString('en-US', { maximumFractionDigits: 2 });

interface Line {
  label: string;
  color: string;
  values: number[];
  dashed?: boolean;
}

/** A chart's drawing: its width and height in SVG units (a pixel at that width) and its margins. */
interface Frame {
  name: 'wide' | 'narrow';
  W: number;
  H: number;
  L: number;
  B: number;
  T: number;
  R: number;
}
/**
 * Each chart is drawn twice, and the page shows the one for its width (CSS, no script): wide from
 * 40rem, narrow below it, where the wide one's 11-unit text would shrink to 5 px on a phone.
 */
const FRAMES: Frame[] = [
  { name: 'wide', W: 800, H: 220, L: 60, B: 26, T: 10, R: 12 },
  { name: 'narrow', W: 360, H: 200, L: 64, B: 26, T: 10, R: 8 },
];

/**
 * A line's points, one per `per` seconds, each the highest of the seconds it stands for (a peak is
 * never lost), with the second each is drawn at: its first, and the line's last for the last point.
 */
function pointsOf(values: number[], per: number): Array<[second: number, value: number]> {
  if (per === 1) return values.map((v, i) => [i, v]);
  const count = Math.ceil(values.length / per);
  return Array.from({ length: count }, (_, i) => [
    i === count - 1 ? values.length - 1 : i * per,
    Math.max(...values.slice(i * per, (i + 1) * per)),
  ]);
}

/** One drawing of a line chart of per-second values: the y axis from 0 to the largest value. */
function drawing(f: Frame, caption: string, unit: string, lines: Line[]): Html {
  const { W, H, L, B, T, R } = f;
  const seconds = Math.max(1, ...lines.map((l) => l.values.length));
  const top = Math.max(...lines.flatMap((l) => l.values), 0) || 1;
  // Second s at its place on the one time axis of every line (a shorter test's line ends early).
  const x = (s: number) => (L + (seconds > 1 ? (s * (W - L - R)) / (seconds - 1) : 0)).toFixed(1);
  const y = (v: number) => (T + (H - T - B) * (1 - v / top)).toFixed(1);
  // At most a point per unit of width (more draw nothing more), every line bucketed alike.
  const per = Math.max(1, Math.ceil(seconds / (W - L - R)));
  const polylines = lines
    .filter((l) => l.values.length)
    .map((l) => {
      const points = pointsOf(l.values, per).map(([s, v]) => `${x(s)},${y(v)}`);
      return html`<polyline data-line="${l.label}" fill="none" stroke="${l.color}" stroke-width="1.6"${l.dashed ? new Html(' stroke-dasharray="5 3"') : ''} points="${points.join(' ')}"/>`;
    });
  return html`<svg class="${f.name}" role="img" aria-label="${caption}" viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg">
<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#57606a"/><line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#57606a"/>
<text x="${L - 6}" y="${T + 10}" text-anchor="end" font-size="11">${fmt(top)} ${unit}</text><text x="${L - 6}" y="${H - B}" text-anchor="end" font-size="11">0</text>
<text x="${L}" y="${H - 8}" font-size="11">0 s</text><text x="${W - R}" y="${H - 8}" text-anchor="end" font-size="11">${seconds - 1} s</text>
${polylines}</svg>`;
}

/** A line chart of per-second values, drawn for a wide page and for a phone's. */
function chart(name: string, caption: string, unit: string, lines: Line[]): Html {
  return html`<figure data-chart="${name}"><figcaption>${caption}</figcaption>
${FRAMES.map((f) => drawing(f, caption, unit, lines))}
<div class="legend">${lines.map((l) => html`<span><i class="swatch" style="background:${l.color}${l.dashed ? ';opacity:.55' : ''}"></i>${l.label}</span>`)}</div></figure>`;
}

const label = (t: ReportTest, i: number, many: boolean) => (many ? `${i === 0 ? 'A' : 'B'} ${t.test_id}` : t.test_id);

/** Rows of figures, a column per test, and the change from A to B when there are two. */
function figures(tests: ReportTest[], rows: Array<[string, (t: ReportTest) => number | undefined | null]>): Html {
  const two = tests.length === 2;
  return html`<div class="scroll"><table><thead><tr><th>Figure</th>${tests.map((t, i) => html`<th class="n">${label(t, i, two)}</th>`)}${two ? html`<th class="n">B against A</th>` : ''}</tr></thead><tbody>
${rows.map(([name, get]) => {
  const [a, b] = tests.map(get);
  const change =
    two && typeof a === 'number' && typeof b === 'number' && a !== 0
      ? `${b >= a ? '+' : ''}${fmt(((b - a) / a) * 100)} %`
      : two
        ? '–'
        : null;
  return html`<tr><td>${name}</td>${tests.map((t) => html`<td class="n">${fmt(get(t))}</td>`)}${change !== null ? html`<td class="n">${change}</td>` : ''}</tr>`;
})}</tbody></table></div>`;
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
  const shape = Array.isArray(c.stages)
    ? `stages of ${c.stage_target}: ${(c.stages as Array<{ duration: number; target: number }>).map((s) => `${s.target} over ${s.duration} s`).join(', ')}`
    : `${fmt(c.concurrent_users)} users for ${fmt(c.test_duration)} s${c.requests_per_second ? ` at ${fmt(c.requests_per_second)} requests/s` : ''}, ramp-up ${fmt(c.ramp_up_time)} s`;
  const spc = c.http2?.streams_per_connection ?? 1;
  const limit = t.http2?.server_max_concurrent_streams ?? null;
  const protocol =
    c.http_version === '2'
      ? html` Over HTTP/2, ${spc === 1 ? 'a connection per user' : `${fmt(spc)} users per connection`}${t.http2 ? `: ${fmt(t.http2.connections)} connections opened` : ''}.${limit !== null && limit < spc ? html` <strong data-limit="${limit}">The server allowed only ${fmt(limit)} streams at once per connection</strong>: the other users waited for one.` : ''}`
      : '';
  return html`<section data-test="${t.test_id}"><h2><i class="swatch" style="background:${COLORS[i]}"></i>${label(t, i, many)}: ${t.status}${t.verdict ? html`, <span class="${t.verdict === 'passed' ? 'pass' : 'fail'}" data-verdict="${t.verdict}">${t.verdict}</span>` : ''}</h2>
<p><code>${c.http_method} ${c.target_url}</code>: ${shape}.${protocol} From ${t.started_at ?? '–'} to ${t.completed_at ?? '–'}.${t.failure_reason ? html` ${t.failure_reason}.` : ''}${t.aborted_by ? html` Stopped by the threshold <code>${t.aborted_by}</code>.` : ''}</p>
${t.thresholds.length ? html`<div class="scroll"><table><thead><tr><th>Threshold</th><th class="n">Observed</th><th>Outcome</th></tr></thead><tbody>${t.thresholds.map((th) => html`<tr><td><code>${th.threshold}</code></td><td class="n">${fmt(th.observed)}</td><td class="${th.pass ? 'pass' : 'fail'}">${th.pass ? 'pass' : 'fail'}</td></tr>`)}</tbody></table></div>` : ''}</section>`;
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
  const lines = (of: (t: ReportTest) => number[], suffix = '', dashed = false): Line[] =>
    tests.map((t, i) => ({ label: `${label(t, i, many)}${suffix}`, color: COLORS[i]!, values: of(t), dashed }));
  const s = (k: keyof ReportTest['summary']) => (t: ReportTest) => t.summary[k];
  const phaseRows = ['dns', 'connect', 'tls', 'ttfb', 'transfer'].flatMap((p) =>
    ['avg', 'p50', 'p95', 'p99', 'max'].map(
      (st) =>
        [`${p} ${st} (ms)`, (t: ReportTest) => t.phases?.[p]?.[st]] as [string, (t: ReportTest) => number | undefined],
    ),
  );
  const unreachable = tests.flatMap((t, i) =>
    t.verdict_reason === 'target_unreachable'
      ? [
          html`<p class="fail" role="alert" data-verdict-reason="target_unreachable"><strong>${many ? `${label(t, i, many)} failed` : 'Failed'}\
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
${chart(
  'requests',
  'Requests sent each second',
  '/s',
  lines((t) => t.series.requests_per_second),
)}
${chart('latency', 'Latency of the requests sent each second: mean (solid) and slowest (dashed)', 'ms', [...lines((t) => t.series.avg_response_time_per_second, ' mean'), ...lines((t) => t.series.max_response_time_per_second, ' slowest', true)])}
${chart(
  'errors',
  'Share of the requests sent each second that failed',
  '%',
  lines((t) => t.series.error_rate_per_second),
)}
<p>Each second's percentiles are in the test's series (<code>GET /api/v1/load-testing/series/{test_id}</code>); the whole test's are under Figures, from histograms merged exactly across shards.</p>
<h2>Phases</h2>
${tests.some((t) => t.phases) ? figures(tests, phaseRows) : html`<p>Not recorded for ${many ? 'these tests' : 'this test'} (run before phases existed).</p>`}
${tests.some((t) => t.steps.length) ? html`<h2>Steps</h2>${tests.map((t, i) => (t.steps.length ? html`<p>${label(t, i, many)}</p><div class="scroll"><table><thead><tr><th>Step</th><th class="n">Requests</th><th class="n">Failed</th><th class="n">Captures that found nothing</th><th class="n">Average</th><th class="n">p95</th><th class="n">p99</th><th class="n">Max</th></tr></thead><tbody>${t.steps.map((st) => html`<tr><td>${st.step}. ${st.name}</td><td class="n">${fmt(st.requests)}</td><td class="n">${fmt(st.failed_requests)}</td><td class="n">${fmt(st.capture_failures)}</td><td class="n">${fmt(st.avg_response_time)}</td><td class="n">${fmt(st.p95_response_time)}</td><td class="n">${fmt(st.p99_response_time)}</td><td class="n">${fmt(st.max_response_time)}</td></tr>`)}</tbody></table></div>` : ''))}` : ''}
${counts('Answers by protocol', tests, (t) => t.protocols)}
${counts('Status codes', tests, (t) => t.status_codes)}
${counts('Errors by kind', tests, (t) => t.errors)}
<h2>Configuration</h2>${tests.map((t, i) => html`<p>${label(t, i, many)}</p><pre>${JSON.stringify(t.config, null, 2)}</pre>`)}
</main>`;
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${POLICY}"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>${new Html(CSS)}</style></head><body>${body}</body></html>`}`;
}
