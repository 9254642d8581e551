// Dashboard: load tests. The start form (the API's fields and validation), the history, a live page
// with a chart while a test runs, and its results when it ends.
import type { Context } from 'koa';
import type { Account } from '../../../db/users.ts';
import { AppError } from '../../../lib/errors.ts';
import { PLAN_LIMITS } from '../../../lib/plans.ts';
import { assetPath } from '../assets.ts';
import { html } from '../../pages/html.ts';
import { plural } from '../../../lib/load/plural.ts';
import { COLORS } from '../../browser/load-figures.ts';
import { loadCharts } from '../../pages/load-charts.ts';
import { sendReport } from '../../pages/load-report.ts';
import { startBody } from '../../../contract/load/load-test-start.ts';
import type { Services } from '../../services/index.ts';
import { startSse } from '../../sse.ts';
import { validate } from '../../../contract/validate.ts';
import { formRefusal } from '../form-labels.ts';
import { REPLAY_FILTERS, replayFormOf, START_LABELS, startBodyFromForm, startForm } from './load-test-form.ts';
import { resultsSection, unreachableLine, verdictSection } from './load-test-view.ts';
import { breakableUrl, dataTable, seeOther, when, type DashboardPages } from '../page.ts';

export function loadTestSection(
  page: DashboardPages,
  { loadTests, streams, reports }: Pick<Services, 'loadTests' | 'streams' | 'reports'>,
): void {
  // Load tests: the start form (the API's fields and validation), the history, a live page with a
  // chart while a test runs, and its results when it ends.
  async function loadTestsPage(
    ctx: Context,
    account: Account,
    form: Record<string, string> = {},
    error?: string,
    status = 400,
    notice?: string,
  ) {
    const { data } = await loadTests.list(account.id, 20);
    page.layout(
      ctx,
      account,
      'load-tests',
      'Load tests',
      html`<h1>Load tests</h1>
        ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
        ${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
        ${startForm(page.csrf(ctx), form, PLAN_LIMITS[account.plan])}
        <h2>History</h2>
        ${
          data.tests.length === 0
            ? html`<p>No load tests yet.</p>`
            : dataTable(
                ['Target', 'Status', 'Verdict', 'Users', 'Requests', 'Errors', 'p95 (ms)', 'Created'],
                data.tests.map((t) => [
                  html`<a class="long" href="/dashboard/load-tests/${t.test_id}">${t.config.http_method} \
${breakableUrl(t.config.target_url)}</a>`,
                  t.status,
                  t.summary?.verdict_reason === 'target_unreachable'
                    ? 'failed: target unreachable'
                    : ((t.summary?.verdict as string | undefined) ?? ''),
                  String(t.config.concurrent_users),
                  t.summary ? String(t.summary.total_requests) : '',
                  t.summary ? `${t.summary.error_rate}%` : '',
                  t.summary ? String(t.summary.p95_response_time) : '',
                  when(t.created_at),
                ]),
                { id: 'load-history' },
              )
        }`,
      error ? status : 200,
    );
  }

  // From a webhook's page: the form filled to replay its captures.
  page.get(
    '/load-tests',
    (ctx, account) => {
      const replay = replayFormOf(ctx.query);
      return loadTestsPage(
        ctx,
        account,
        replay,
        undefined,
        200,
        replay.startBody
          ? "Replaying the webhook's captures (under More options): give the URL their paths are appended to " +
              'and the users (the duration defaults to what the replay needs). Each request keeps its own method ' +
              'and body; the headers and credentials here are added to its own.'
          : undefined,
      );
    },
    { query: ['replay_webhook', ...REPLAY_FILTERS] },
  );

  page.post('/load-tests', async (ctx, { form, account }) => {
    const { csrf: _csrf, authPassword: _p, authToken: _t, apiKeyValue: _k, ...kept } = form;
    try {
      const answer = await loadTests.start(validate(startBody, startBodyFromForm(form), 'form'), {
        userId: account.id,
        plan: account.plan,
      });
      seeOther(ctx, `/dashboard/load-tests/${answer.test_id}`);
    } catch (err) {
      // Bad input and the plan's bounds are shown on the form, with what was typed (secrets aside).
      const refusal = formRefusal(ctx, err, START_LABELS);
      return loadTestsPage(ctx, account, kept, refusal.message, refusal.status);
    }
  });

  page.item(
    '/load-tests/:id',
    'load-tests',
    'load test',
    (id, account) => loadTests.live(id, account.id),
    async (ctx, account, { row, status }, show) => {
      const ended = !['pending', 'running'].includes(status.status);
      const final = ended ? (await loadTests.results(row.id, account.id)).results : null;
      // An ended test's charts are drawn here, as the report draws them; a running test's by its script.
      const charts = ended
        ? loadCharts([{ label: row.id, color: COLORS.a, series: (await reports.test(row.id, account.id)).series }])
        : '';
      const m = status.metrics as Record<string, number>;
      show(
        `Load test ${row.id}`,
        html`<h1>Load test</h1>
        ${unreachableLine(final)}
        <p><code>${row.config.http_method} ${row.config.target_url}</code>, \
${plural(row.config.concurrent_users, 'user')} for ${row.config.test_duration} s</p>
        <div class="status-row"><p role="status" aria-live="polite" id="load-status" data-test="\
${row.id}" data-started="${status.started_at ?? ''}" data-duration="${row.config.test_duration}" data-ended="\
${ended ? 'yes' : 'no'}">Status <strong>${status.status}</strong>, ${status.progress}% done\
${status.failure_reason ? html`: ${status.failure_reason}` : ''}</p>
        <form method="post" action="/dashboard/load-tests/${row.id}/stop" id="load-stop"${ended ? html` hidden` : ''}>\
<input type="hidden" name="csrf" value="${page.csrf(ctx)}"><button type="submit" class="danger">Stop the test</button>\
</form></div>
        ${totalsLine(m, ended)}
        ${verdictSection(status.thresholds, status.verdict, final?.aborted_by)}
        <h2>${ended ? 'Each second of the test' : 'Each second as it happens'}</h2>
        <div id="load-chart">${charts}</div>
        ${final ? resultsSection(final) : ''}
        ${
          ended
            ? await reportLinks(row.id, account.id)
            : html`<script type="module" \
src="${assetPath('load-chart.js')}"></script>`
        }`,
      );
    },
  );

  /** The report to keep, and a comparison with another ended test of the user's. */
  async function reportLinks(testId: string, userId: number) {
    const others = (await loadTests.list(userId, 20)).data.tests.filter(
      (t) => t.test_id !== testId && !['pending', 'running'].includes(t.status),
    );
    return html`<h2>Report</h2><p><a id="load-report" href="/dashboard/load-tests/${testId}/report">Open the report\
</a>: one HTML file to keep (save it from the browser); it needs no network to open.</p>
      ${
        others.length
          ? html`<form method="get" action="/dashboard/load-tests/${testId}/report">\
<label for="compare">Compare with</label>\
<select id="compare" name="compare">${others.map(
              (t) => html`<option value="${t.test_id}">${t.test_id}: \
${t.config.target_url} (${t.status}, ${t.created_at.slice(0, 16)})</option>`,
            )}</select>\
<button type="submit" class="secondary">Compare</button></form>`
          : ''
      }`;
  }

  page.get(
    '/load-tests/:test_id/report',
    async (ctx, account) => {
      await page.spend(account);
      const compare = typeof ctx.query.compare === 'string' && ctx.query.compare ? ctx.query.compare : undefined;
      sendReport(ctx, await reports.report(ctx.params.test_id!, account.id, compare));
    },
    { query: ['compare'] },
  );

  page.post(
    '/load-tests/:test_id/stop',
    async (ctx, { account }) => {
      const row = await loadTests.owned(ctx.params.test_id!, account.id);
      await loadTests.stop(row).catch((err) => {
        if (!(err instanceof AppError && err.code === 'conflict')) throw err;
      });
      seeOther(ctx, `/dashboard/load-tests/${row.id}`);
    },
    { refusable: false },
  );

  // The status answer plus a chart point (the last interval's rate, errors and percentiles) every second.
  page.get('/load-tests/:test_id/events', async (ctx, account) => {
    const row = await loadTests.owned(ctx.params.test_id!, account.id);
    await page.spend(account);
    startSse(ctx, loadTests.chartStream(row.id, account.id), {
      lease: await streams.open({ userId: account.id, plan: account.plan }),
    });
  });
}

/**
 * The totals line: the requests, the rate (while the test runs, the last second's beside the average
 * since the start, which a ramp holds down), the errors and the mean latency, each labelled; the
 * running page's script updates each figure by its id.
 */
function totalsLine(m: Record<string, number>, ended: boolean) {
  const figure = (id: string, label: string, value: unknown, unit: string) =>
    html`<span>${label} <strong id="${id}">${value}</strong>${unit}</span>`;
  const figures = [
    figure('load-requests', 'Requests', m.total_requests ?? 0, ''),
    ...(ended ? [] : [figure('load-rate-now', 'Now', '–', ' req/s (last second)')]),
    ended
      ? figure('load-rate-avg', 'Throughput', m.throughput ?? 0, ' req/s')
      : figure('load-rate-avg', 'Average', m.throughput ?? 0, ' req/s (since the start)'),
    figure('load-error-rate', 'Errors', m.error_rate ?? 0, ' %'),
    figure('load-latency-avg', 'Mean latency', m.avg_response_time ?? 0, ' ms'),
  ];
  return html`<p id="load-totals">${figures.map((f, i) => (i ? html` · ${f}` : f))}</p>`;
}
