// Dashboard: what a load test's page shows of its figures. The verdict and the thresholds (live from
// the status, final from the results; load-chart.js redraws them from the status stream), and once
// it ended the results: the totals, the answers by status code (4xx and 5xx marked failed), the
// requests that got no answer by kind, each phase and each step. Tables of a few short columns stay
// tables on a phone; the phases and the steps become a block a row there.
import type { FinalResults, ThresholdOutcome } from '../../../lib/jobs/load-test.ts';
import { html, type Html } from '../../pages/html.ts';
import { observedFigure } from '../../browser/load-figures.ts';
import { PHASE_COLUMNS, PHASE_NAMES } from '../../pages/load-report.ts';
import { dataTable } from '../page.ts';

/**
 * The line a run that tested nothing opens with (every attempt failed: verdict.ts), above everything
 * else on its page; nothing for another run.
 */
export function unreachableLine(r: Pick<FinalResults, 'verdict_reason' | 'verdict_detail'> | null | undefined): Html {
  if (r?.verdict_reason !== 'target_unreachable') return html``;
  return html`<p class="error" role="alert" id="load-unreachable" data-verdict-reason="target_unreachable">\
<strong>Failed: target unreachable</strong>, nothing was measured: ${r.verdict_detail ?? 'every attempt failed'}.</p>`;
}

/** The verdict and each threshold's observed figure: `live` while the test runs (the verdict comes at its end). */
export function verdictSection(
  thresholds: ThresholdOutcome[] | undefined,
  verdict: string | undefined,
  abortedBy?: string,
): Html {
  if (!thresholds?.length) return html`<section id="load-verdict" hidden></section>`;
  const shown = verdict ?? (thresholds.every((t) => t.pass) ? 'passing so far' : 'failing so far');
  return html`<section id="load-verdict" data-verdict="${verdict ?? ''}"><h2>Verdict: \
<span class="outcome ${shown.includes('fail') ? 'failed' : 'passed'}">${shown}</span></h2>
    ${abortedBy ? html`<p>Stopped by the failing threshold <code>${abortedBy}</code>.</p>` : ''}
    ${dataTable(
      ['Threshold', 'Observed', 'Outcome'],
      thresholds.map((t) => [
        html`<code>${t.threshold}</code>`,
        observedFigure(t.threshold, t.observed),
        t.pass ? 'pass' : 'fail',
      ]),
      { id: 'load-thresholds', rowClass: (i) => (thresholds[i]!.pass ? '' : 'failed'), reflow: false },
    )}</section>`;
}

/** A test's results once it ended. */
export function resultsSection(r: FinalResults): Html {
  const rows: Array<[string, string | number]> = [
    ['Total requests', r.total_requests],
    ['Successful', r.successful_requests],
    ['Failed', r.failed_requests],
    ['Connection errors (not sent)', r.connection_errors ?? 0],
    ['Error rate (connection errors included)', `${r.error_rate}%`],
    ['Throughput', `${r.throughput} requests/s`],
    ['Average', `${r.avg_response_time} ms`],
    ['Min', `${r.min_response_time} ms`],
    ['Max', `${r.max_response_time} ms`],
    ['p50', `${r.p50_response_time} ms`],
    ['p75', `${r.p75_response_time} ms`],
    ['p90', `${r.p90_response_time} ms`],
    ['p95', `${r.p95_response_time} ms`],
    ['p99', `${r.p99_response_time} ms`],
    ['Bytes sent', r.total_bytes_sent],
    ['Bytes received', r.total_bytes_received],
    ['Duration', `${r.duration_seconds} s`],
    ['Dropped (open model)', r.dropped_requests],
    ['Shard failures', r.shard_failures],
    ['Lost with a worker', r.requests_lost ?? 0],
    ['Shard restarts', r.shard_restarts ?? 0],
    ['Seconds without traffic', r.seconds_without_traffic ?? 0],
  ];
  const codes = Object.entries(r.status_codes ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const errors = Object.entries(r.errors ?? {}).sort(([, a], [, b]) => b - a);
  const share = (n: number) => (r.total_requests ? `${Math.round((n / r.total_requests) * 1000) / 10}%` : '');
  return html`<h2>Results</h2><div class="table-wrap"><table id="load-results">\
<tbody>${rows.map(([k, val]) => html`<tr><th scope="row">${k}</th><td>${val}</td></tr>`)}</tbody></table></div>
    <h3>Answers by status code</h3>
    ${
      codes.length
        ? dataTable(
            ['Status', 'Requests', 'Share', 'Counted as'],
            codes.map(([code, n]) => [code, String(n), share(n), Number(code) >= 400 ? 'failed' : 'successful']),
            {
              id: 'load-status-codes',
              rowClass: (i) => (Number(codes[i]![0]) >= 400 ? 'failed' : ''),
              reflow: false,
            },
          )
        : html`<p>No answers.</p>`
    }
    <h3>Requests without an answer</h3>
    ${
      errors.length
        ? dataTable(
            ['Kind', 'Requests', 'Share'],
            errors.map(([kind, n]) => [kind, String(n), share(n)]),
            { id: 'load-errors', reflow: false },
          )
        : html`<p>None: every request was answered (connection errors and timeouts would be here).</p>`
    }
    ${phasesTable(r)}${stepsTable(r)}`;
}

/** A row per phase, a column per statistic; on a phone a block a phase as in the report (10 s figures do not fit). */
function phasesTable(r: FinalResults): Html {
  if (!r.phases) return html``;
  const phases = r.phases;
  const order = Object.keys(PHASE_NAMES).filter((p) => phases[p]);
  return html`<h3>Phases (ms)</h3>${dataTable(
    ['Phase', ...PHASE_COLUMNS],
    order.map((phase) => [PHASE_NAMES[phase]!, ...PHASE_COLUMNS.map((st) => String(phases[phase]![st] ?? ''))]),
    { id: 'load-phases', figuresFrom: 1 },
  )}`;
}

function stepsTable(r: FinalResults): Html {
  if (!r.steps?.length) return html``;
  return html`<h3>Steps</h3>${dataTable(
    ['Step', 'Requests', 'Failed', 'Captures that found nothing', 'p95 (ms)', 'Max (ms)'],
    r.steps.map((s) => [
      `${s.step}. ${s.name}`,
      String(s.requests),
      `${s.failed_requests} (${s.error_rate}%)`,
      String(s.capture_failures),
      String(s.p95_response_time),
      String(s.max_response_time),
    ]),
    { id: 'load-steps' },
  )}`;
}
