// Dashboard: load tests. The start form (the API's fields and validation), the history, a live page
// with a chart while a test runs, and its results when it ends.
import type { Context } from 'koa';
import type { FinalResults } from '../../lib/jobs/load-test.ts';
import type { Account } from '../../db/users.ts';
import { AppError, InvalidInputError } from '../../lib/errors.ts';
import { html, type Html } from '../pages/html.ts';
import { sendReport } from '../pages/load-report.ts';
import { HTTP_METHODS, startBody } from '../schemas/load-tests.ts';
import type { Services } from '../services/index.ts';
import { startSse } from '../sse.ts';
import { validate } from '../validate.ts';
import { dataTable, seeOther, when, type DashboardPages } from './page.ts';

export function loadTestSection(page: DashboardPages, { loadTests, streams, reports }: Pick<Services, 'loadTests' | 'streams' | 'reports'>): void {
  // Load tests: the start form (the API's fields and validation), the history, a live page with a
  // chart while a test runs, and its results when it ends.
  async function loadTestsPage(ctx: Context, account: Account, form: Record<string, string> = {}, error?: string, status = 400) {
    const { data } = await loadTests.list(account.id, 20);
    const csrf = page.csrf(ctx);
    const v = (name: string, fallback = '') => form[name] ?? fallback;
    const field = (name: string, label: string, attrs: Html) => html`<p><label for="${name}">${label}</label><input id="${name}" name="${name}" ${attrs} value="${v(name)}"></p>`;
    page.layout(
      ctx,
      account,
      'load-tests',
      'Load tests',
      html`<h1>Load tests</h1>
        ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
        <form method="post" action="/dashboard/load-tests"><input type="hidden" name="csrf" value="${csrf}">
          <p><label for="targetUrl">Target URL</label><input id="targetUrl" name="targetUrl" type="text" required style="width:100%" value="${v('targetUrl')}" placeholder="https://staging.example.com/health"></p>
          <p><label for="httpMethod">Method</label><select id="httpMethod" name="httpMethod">${HTTP_METHODS.map((m) => html`<option${m === v('httpMethod', 'GET') ? html` selected` : ''}>${m}</option>`)}</select></p>
          ${field('concurrentUsers', 'Concurrent users (1 to 10000)', html`type="number" min="1" max="10000" required`)}
          ${field('testDuration', 'Duration in seconds (10 to 3600)', html`type="number" min="10" max="3600" required`)}
          ${field('rampUpTime', 'Ramp-up in seconds (default 10)', html`type="number" min="0" max="3600"`)}
          ${field('requestsPerSecond', 'Requests per second (0: as fast as answered)', html`type="number" min="0"`)}
          <p><label for="headers">Headers, one "Name: value" per line</label><textarea id="headers" name="headers" rows="3" style="width:100%">${v('headers')}</textarea></p>
          <p><label for="body">Body (POST, PUT, PATCH)</label><textarea id="body" name="body" rows="3" style="width:100%">${v('body')}</textarea></p>
          <p><label for="authType">Authentication</label><select id="authType" name="authType">${['none', 'basic', 'bearer', 'apikey'].map((a) => html`<option${a === v('authType', 'none') ? html` selected` : ''}>${a}</option>`)}</select></p>
          ${field('authUsername', 'Basic: user name', html`type="text" autocomplete="off"`)}
          <p><label for="authPassword">Basic: password</label><input id="authPassword" name="authPassword" type="password" autocomplete="off"></p>
          <p><label for="authToken">Bearer: token</label><input id="authToken" name="authToken" type="password" autocomplete="off"></p>
          ${field('apiKeyHeader', 'API key: header name', html`type="text" placeholder="X-API-Key"`)}
          <p><label for="apiKeyValue">API key: value</label><input id="apiKeyValue" name="apiKeyValue" type="password" autocomplete="off"></p>
          <p><label><input type="checkbox" name="insecureTls" value="true"${v('insecureTls') === 'true' ? html` checked` : ''}> Accept any certificate (https with a self-signed one, say)</label></p>
          <button type="submit">Start the load test</button></form>
        <h2>History</h2>
        ${
          data.tests.length === 0
            ? html`<p>No load tests yet.</p>`
            : dataTable(
                ['Target', 'Status', 'Users', 'Requests', 'p95 (ms)', 'Created'],
                data.tests.map((t) => [
                  html`<a href="/dashboard/load-tests/${t.test_id}">${String(t.config.http_method ?? '')} ${String(t.config.target_url ?? '')}</a>`,
                  t.status,
                  String(t.config.concurrent_users ?? ''),
                  t.summary ? String(t.summary.total_requests) : '',
                  t.summary ? String(t.summary.p95_response_time) : '',
                  when(t.created_at),
                ]),
              )
        }`,
      error ? status : 200,
    );
  }

  page.get('/load-tests', (ctx, account) => loadTestsPage(ctx, account));

  page.post('/load-tests', async (ctx, { form, account }) => {
    const { csrf: _csrf, authPassword: _p, authToken: _t, apiKeyValue: _k, ...kept } = form;
    try {
      const answer = await loadTests.start(validate(startBody, startBodyFromForm(form), 'body'), { userId: account.id, plan: account.plan });
      seeOther(ctx, `/dashboard/load-tests/${answer.test_id}`);
    } catch (err) {
      // Bad input and the plan's bounds are shown on the form, with what was typed (secrets aside).
      if (err instanceof AppError && err.isCallersFault) return loadTestsPage(ctx, account, kept, err.message, err.status);
      throw err;
    }
  });

  page.item('/load-tests/:id', 'load-tests', 'load test', (id, account) => loadTests.owned(id, account.id), async (ctx, account, row) => {
    const status = await loadTests.status(row);
    const ended = !['pending', 'running'].includes(status.status);
    const final = ended ? (await loadTests.results(row.id, account.id)).results : null;
    const csrf = page.csrf(ctx);
    const m = status.metrics as Record<string, number>;
    page.layout(
      ctx,
      account,
      'load-tests',
      `Load test ${row.id}`,
      html`<h1>Load test</h1>
        <p><code>${String(row.config.http_method)} ${String(row.config.target_url)}</code>, ${String(row.config.concurrent_users)} users for ${String(row.config.test_duration)} s</p>
        <p role="status" aria-live="polite" id="load-status" data-test="${row.id}" data-started="${status.started_at ?? ''}" data-ended="${ended ? 'yes' : 'no'}">Status <strong>${status.status}</strong>, ${status.progress}% done${status.failure_reason ? html`: ${status.failure_reason}` : ''}</p>
        <p id="load-totals">${m.total_requests ?? 0} requests, ${m.throughput ?? 0} per second, ${m.error_rate ?? 0}% errors, average ${m.avg_response_time ?? 0} ms</p>
        ${status.status === 'running' ? html`<form method="post" action="/dashboard/load-tests/${row.id}/stop"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="secondary">Stop</button></form>` : ''}
        <figure><figcaption>${ended ? 'Each second of the test: requests sent, the share that failed, and the mean and slowest latency of their answers' : 'Each second as it happens: requests per second, error rate and latency (p50, p95, p99)'}</figcaption>
          <div id="load-chart" data-series="${JSON.stringify(final ? chartSeries(final) : {})}"></div></figure>
        ${final ? resultsTable(final) : ''}
        ${ended ? await reportLinks(row.id, account.id) : ''}
        <script src="/dashboard/assets/load-chart.js"></script>`,
    );
  });

  /** The report to keep, and a comparison with another ended test of the user's. */
  async function reportLinks(testId: string, userId: number) {
    const others = (await loadTests.list(userId, 20)).data.tests.filter((t) => t.test_id !== testId && !['pending', 'running'].includes(t.status));
    return html`<h2>Report</h2><p><a id="load-report" href="/dashboard/load-tests/${testId}/report">Open the report</a>: one HTML file to keep (save it from the browser); it needs no network to open.</p>
      ${others.length ? html`<form method="get" action="/dashboard/load-tests/${testId}/report"><label for="compare">Compare with</label><select id="compare" name="compare">${others.map((t) => html`<option value="${t.test_id}">${t.test_id}: ${String(t.config.target_url)} (${t.status}, ${t.created_at.slice(0, 16)})</option>`)}</select><button type="submit" class="secondary">Compare</button></form>` : ''}`;
  }

  page.get('/load-tests/:test_id/report', async (ctx, account) => {
    await page.spend(account);
    const compare = typeof ctx.query.compare === 'string' && ctx.query.compare ? ctx.query.compare : undefined;
    sendReport(ctx, await reports.report(ctx.params.test_id!, account.id, compare));
  });

  page.post('/load-tests/:test_id/stop', async (ctx, { account }) => {
    const row = await loadTests.owned(ctx.params.test_id!, account.id);
    await loadTests.stop(row).catch((err) => {
      if (!(err instanceof AppError && err.code === 'conflict')) throw err;
    });
    seeOther(ctx, `/dashboard/load-tests/${row.id}`);
  }, { refusable: false });

  // The status answer plus a chart point (the last interval's rate, errors and percentiles) every second.
  page.get('/load-tests/:test_id/events', async (ctx, account) => {
    const row = await loadTests.owned(ctx.params.test_id!, account.id);
    await page.spend(account);
    startSse(ctx, loadTests.chartStream(row.id, account.id), { lease: await streams.open({ userId: account.id, plan: account.plan }) });
  });

  page.script('load-chart.js');
}

/** The API's start body from the dashboard's form (numbers as numbers, headers from lines). */
function startBodyFromForm(form: Record<string, string>): Record<string, unknown> {
  const num = (name: string) => (form[name] === undefined || form[name].trim() === '' ? undefined : Number(form[name]));
  const headers: Record<string, string> = {};
  for (const line of (form.headers ?? '').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (line.trim() === '') continue;
    if (at <= 0) throw new InvalidInputError(`headers: "${line.slice(0, 60)}" is not "Name: value"`, 'headers');
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  const optional = (name: string) => (form[name]?.trim() ? form[name] : undefined);
  return {
    targetUrl: form.targetUrl ?? '',
    httpMethod: form.httpMethod ?? 'GET',
    concurrentUsers: num('concurrentUsers'),
    testDuration: num('testDuration'),
    rampUpTime: num('rampUpTime'),
    requestsPerSecond: num('requestsPerSecond'),
    headers,
    body: optional('body'),
    authType: form.authType || 'none',
    authUsername: optional('authUsername'),
    authPassword: optional('authPassword'),
    authToken: optional('authToken'),
    apiKeyHeader: optional('apiKeyHeader'),
    apiKeyValue: optional('apiKeyValue'),
    insecureTls: form.insecureTls === 'true',
  };
}

/** What the results page's charts draw (load-chart.js), from the results kept with the test. */
function chartSeries(r: FinalResults) {
  // Results kept before the per-second answers existed have only the requests.
  const { requests_per_second, error_rate_per_second = [], avg_response_time_per_second = [], max_response_time_per_second = [] } = r;
  return { requests_per_second, error_rate_per_second, avg_response_time_per_second, max_response_time_per_second };
}

function resultsTable(r: FinalResults): Html {
  const rows: Array<[string, string | number]> = [
    ['Total requests', r.total_requests], ['Successful', r.successful_requests], ['Failed', r.failed_requests], ['Error rate', `${r.error_rate}%`],
    ['Throughput', `${r.throughput} requests/s`], ['Average', `${r.avg_response_time} ms`], ['Min', `${r.min_response_time} ms`], ['Max', `${r.max_response_time} ms`],
    ['p50', `${r.p50_response_time} ms`], ['p75', `${r.p75_response_time} ms`], ['p90', `${r.p90_response_time} ms`], ['p95', `${r.p95_response_time} ms`], ['p99', `${r.p99_response_time} ms`],
    ['Bytes sent', r.total_bytes_sent], ['Bytes received', r.total_bytes_received], ['Duration', `${r.duration_seconds} s`], ['Dropped (open model)', r.dropped_requests], ['Shard failures', r.shard_failures],
    ['Lost with a worker', r.requests_lost ?? 0], ['Shard restarts', r.shard_restarts ?? 0], ['Seconds without traffic', r.seconds_without_traffic ?? 0],
  ];
  const counts = (title: string, c: Record<string, number>) =>
    html`<h3>${title}</h3>${Object.keys(c).length ? html`<table><tbody>${Object.entries(c).map(([k, n]) => html`<tr><th scope="row">${k}</th><td>${n}</td></tr>`)}</tbody></table>` : html`<p>none</p>`}`;
  return html`<h2>Results</h2><div class="table-wrap"><table id="load-results"><tbody>${rows.map(([k, val]) => html`<tr><th scope="row">${k}</th><td>${val}</td></tr>`)}</tbody></table></div>
    ${counts('Status codes', r.status_codes ?? {})}${counts('Errors', r.errors ?? {})}`;
}
