// A load test's report: one HTML file, opened in Debian's chromium from a disk with the network off;
// nothing leaves the page and the charts are drawn, with round labelled ticks on both axes that fit
// the drawing and each second's p50, p95 and p99; two tests side by side; the same data as JSON; and
// the dashboard's pages of the test: while it runs, the last second's rate beside the average; once
// it ended, the same charts and the phases as one table, a block a phase on a phone. Refusals: a running
// test (409), another user's (404), itself as the comparison (400). Screenshots at 1280, 600 and 375 px
// go to SHOTS_DIR (default test-artifacts/screenshots).
/// <reference lib="dom" />
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, expectErrorShape, newAccount, targets } from '../support/client.ts';
import { loadTestCalls, pacedTest } from '../support/load-tests.ts';
import { newUser, PASSWORD } from '../support/mcp.ts';
import { PHASE_TABLE_COLUMNS, PHASE_TABLE_ROWS } from '../support/phases-table.ts';
import { reportTest } from '../support/report-test.ts';
import { loadReportPage } from '../../api/pages/load-report.ts';
import { STYLES } from '../../api/pages/styles.ts';
import { resultsSection } from '../../api/dashboard/load-tests/load-test-view.ts';
import type { FinalResults } from '../../lib/jobs/load-test.ts';
import { ROOT } from '../support/processes.ts';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';

const SHOTS = process.env.SHOTS_DIR ?? path.join(ROOT, 'test-artifacts', 'screenshots');
const target = targets()[0]!;

/**
 * The charts a page shows at its width: for each figure, the drawing shown, its lines (points and
 * drawn width), its tick labels, and every text's box against the drawing's (a label out of it is cut).
 */
const shownCharts = (page: Page) =>
  page.$$eval('figure[data-chart]', (figures) =>
    figures.map((f) => {
      const shown = [...f.querySelectorAll('svg')].filter((svg) => svg.getBoundingClientRect().width > 0);
      const texts = (svg: SVGSVGElement, selector: string) =>
        [...svg.querySelectorAll(selector)].map((t) => t.textContent ?? '');
      return {
        chart: f.getAttribute('data-chart'),
        shown: shown.map((svg) => svg.getAttribute('class')),
        lines: shown.flatMap((svg) =>
          [...svg.querySelectorAll('polyline')].map((p) => ({
            line: p.getAttribute('data-line'),
            points: (p.getAttribute('points') ?? '').trim().split(' ').length,
            width: p.getBoundingClientRect().width,
          })),
        ),
        ticksY: shown.flatMap((svg) => texts(svg, 'text.tick-y')),
        ticksX: shown.flatMap((svg) => texts(svg, 'text.tick-x')),
        textHeights: shown.flatMap((svg) =>
          [...svg.querySelectorAll('text')].map((t) => t.getBoundingClientRect().height),
        ),
        cut: shown.flatMap((svg) => {
          const box = svg.getBoundingClientRect();
          return [...svg.querySelectorAll('text')]
            .filter((t) => {
              const r = t.getBoundingClientRect();
              return r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5;
            })
            .map((t) => t.textContent);
        }),
      };
    }),
  );

/** What a reader needs of every chart: round labelled ticks (3 or more per axis, with units), nothing cut. */
function expectReadable(drawn: Awaited<ReturnType<typeof shownCharts>>) {
  const units: Record<string, RegExp> = {
    requests: /^[\d,]+ req\/s$/,
    latency: /^[\d.,]+ (ms|s)$/,
    // 1 error/s, 0 or 2 errors/s.
    errors: /^(1 error|(?!1 )[\d,]+ errors)\/s$/,
  };
  for (const d of drawn) {
    expect(d.ticksY.length, d.chart!).toBeGreaterThanOrEqual(3);
    expect(d.ticksX.length, d.chart!).toBeGreaterThanOrEqual(3);
    for (const t of d.ticksY) expect(t).toMatch(units[d.chart!]!);
    for (const t of d.ticksX) expect(t).toMatch(/^\d+ s$/);
    expect(d.cut, d.chart!).toEqual([]);
  }
}

describe('load test report', () => {
  let browser: Browser;
  let site: LoadTarget;
  let user: { email: string; userId: number };
  let key: string;
  let calls: ReturnType<typeof loadTestCalls>;
  const ids: string[] = [];
  /** Both tests ended. */
  let ended: Promise<unknown>;
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    site = await startLoadTarget();
    browser = await launchChromium();
    // Enterprise: its 3,000 requests a minute leave room for the polls, the pages and a third test.
    user = await newUser(target, 'enterprise');
    key = JSON.parse(
      (await admin(target, ['create-key', '--email', user.email, '--plan', 'enterprise'])).stdout,
    ).api_key;
    calls = loadTestCalls(target, Promise.resolve({ key }));
    // Two small tests of the same target, one with thresholds: run at once.
    const base = {
      targetUrl: `${site.url}/delay/10/report`,
      httpMethod: 'GET',
      concurrentUsers: 3,
      testDuration: 10,
      rampUpTime: 0,
    };
    const started = await Promise.all([
      calls.start({ ...base, requestsPerSecond: 40, thresholds: ['p95 < 1000', 'error_rate < 1'] }),
      calls.start({ ...base, requestsPerSecond: 80 }),
    ]);
    for (const s of started) {
      expect(s.status, JSON.stringify(s.body)).toBe(202);
      ids.push(s.body.test_id);
    }
    expectErrorShape(await call(target, 'GET', `/api/v1/load-testing/report/${ids[0]}`, { key }), 409);
    ended = Promise.all(
      ids.map((id) => calls.waitFor(id, (b) => b.status !== 'pending' && b.status !== 'running', 40_000)),
    );
    ended.catch(() => {}); // awaited by each test
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** A dashboard page signed in as the tests' owner, in a window `width` px wide. */
  async function dashboard(width: number) {
    const context = await browser.newContext({ baseURL: target.baseUrl, viewport: { width, height: 900 } });
    const page = await context.newPage();
    await page.goto('/dashboard');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/keys');
    return { page, context };
  }

  /**
   * Opens a report saved to a file, with the network off, in a window `width` px wide, and answers
   * what the page asked for and drew (the charts it shows at that width); a screenshot as `shot`.
   */
  async function openOffline(htmlText: string, width = 1280, shot?: string) {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'report-')), 'report.html');
    fs.writeFileSync(file, htmlText);
    const context = await browser.newContext({ offline: true, viewport: { width, height: 900 } });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`file://${file}`);
    const drawn = await shownCharts(page);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    // The tables that hide part of themselves behind a sideways scroll of their box: their headings.
    const clipped = await page.$$eval('.scroll > table, .table-wrap > table', (tables) =>
      tables.filter((t) => t.scrollWidth > t.parentElement!.clientWidth).map((t) => t.querySelector('th')?.textContent),
    );
    // How the phases' and the first steps' rows are laid out: table-row, or block (reflowed: the phases at 640 px and
    // narrower, the steps, a wide table, at 1024 px and narrower).
    const rowDisplay = (selector: string) =>
      page.$eval(selector, (tr) => getComputedStyle(tr).display).catch(() => null);
    const reflowed = { phases: await rowDisplay('#phases tbody tr'), steps: await rowDisplay('.steps tbody tr') };
    // The text as a reader sees it: innerText breaks lines between blocks, which the assertions read.
    // biome-ignore lint/performance/useDomNodeTextContent: textContent has no line breaks between blocks
    const text = await page.locator('main').innerText();
    if (shot) await page.screenshot({ path: path.join(SHOTS, `${shot}.png`), fullPage: true });
    await context.close();
    return { requests, drawn, text, scrollWidth, clipped, reflowed };
  }

  it('is one HTML file that opens with the network off, asks for nothing and draws readable charts', async () => {
    await ended;
    const res = await fetch(`${target.baseUrl}/api/v1/load-testing/report/${ids[0]}`, {
      headers: { 'X-API-Key': key },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.text();
    expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
    const { requests, drawn, text } = await openOffline(body, 1280, 'load-report-1280');
    expect(requests).toEqual([expect.stringMatching(/^file:\/\/.*report\.html$/)]);
    expect(drawn.map((d) => d.chart)).toEqual(['requests', 'latency', 'errors']);
    expect(drawn.map((d) => d.shown)).toEqual([['wide'], ['wide'], ['wide']]);
    for (const d of drawn)
      for (const l of d.lines) {
        expect(l.points).toBeGreaterThanOrEqual(9); // a point per second of the test
        expect(l.width).toBeGreaterThan(100); // drawn across the chart
      }
    expectReadable(drawn);
    // Each second's p50, p95 and p99 of the latency.
    expect(drawn[1]!.lines.map((l) => l.line)).toEqual(['p50', 'p95', 'p99']);
    expect(text).toContain('p95 < 1000');
    expect(text).toMatch(/passed/);
    expect(text).toMatch(
      /Phases \(ms\)\s*\n\s*Phase\s+avg\s+p50\s+p95\s+p99\s+max\s*\n\s*DNS(\s+[\d.]+){5}\s*\n\s*Connect/,
    );
    expect(text).toMatch(/Status codes\s*\n\s*Figure\s+\S+\s*\n\s*200\s/); // the status codes table's row

    // On a phone: the charts drawn for its width, their labels as large as on a wide page, no sideways scroll.
    const phone = await openOffline(body, 375, 'load-report-375');
    expect(phone.drawn.map((d) => d.shown)).toEqual([['narrow'], ['narrow'], ['narrow']]);
    for (const d of phone.drawn) {
      for (const l of d.lines) expect(l.width).toBeGreaterThan(200); // of the 351 px of the box, labels aside
      expect(Math.min(...d.textHeights)).toBeGreaterThanOrEqual(11);
    }
    expectReadable(phone.drawn);
    expect(phone.scrollWidth).toBeLessThanOrEqual(375);
    expect(phone.clipped).toEqual([]);
  });

  it('shows every table whole from a phone to a desktop, however large its figures and long its steps', async () => {
    // Two tests with figures of a slow target (10 s and more), a step named by its long path (no space to break
    // at), and the dashboard's results of the same.
    const ms = (x: number) => Math.round(x * 100) / 100; // as stored: two decimals
    const big = (k: number) => ({
      avg: ms(108.8 * k),
      p50: ms(99.1 * k),
      p95: ms(1234.5 * k),
      p99: ms(2345.6 * k),
      max: ms(10234.5 * k),
    });
    const phases = { dns: big(0.01), connect: big(0.1), tls: big(0.3), ttfb: big(1), transfer: big(0.5) };
    const slow = (id: string) => {
      const t = reportTest(id, 'https://example.test/');
      const step = {
        ...t.steps[0]!,
        name: 'checkout with a coupon',
        requests: 123_456,
        failed_requests: 12_345,
        capture_failures: 1_234,
        avg_response_time: 12_345.6,
        p95_response_time: 23_456.7,
        p99_response_time: 34_567.8,
        max_response_time: 45_678.9,
      };
      const named = { ...step, step: 2, name: 'GET /api/v1/accounts/settings/notifications/preferences?include=all' };
      return { ...t, phases, steps: [step, named] };
    };
    const page = loadReportPage({
      success: true,
      generated_at: '2026-11-23T10:01:00.000Z',
      tests: [slow('A'.repeat(22)), slow('B'.repeat(22))],
    });
    const phone = await openOffline(page, 375, 'load-report-compare-slow-375');
    expect(phone.clipped).toEqual([]);
    expect(phone.scrollWidth).toBeLessThanOrEqual(375);
    expect(phone.reflowed).toEqual({ phases: 'block', steps: 'block' });
    // At 1280 px they stay tables, whole, their figures apart when copied.
    const wide = await openOffline(page, 1280);
    expect(wide.clipped).toEqual([]);
    expect(wide.reflowed).toEqual({ phases: 'table-row', steps: 'table-row' });
    expect(wide.text).toMatch(/Time to first byte\s+A\s+108\.8\s+99\.1\s+1,234\.5\s+2,345\.6\s+10,234\.5/);

    const { steps } = slow('C');
    const results = { phases, steps, status_codes: { '200': 10 }, errors: {} } as unknown as FinalResults;
    const dashboardPage = `<!doctype html><html><head><meta name="viewport" content="width=device-width">\
<style>${STYLES['page.css']}</style></head><body><main>${resultsSection(results)}</main></body></html>`;
    const dashboard = await openOffline(dashboardPage, 375, 'load-test-results-slow-375');
    expect(dashboard.clipped).toEqual([]);
    expect(dashboard.scrollWidth).toBeLessThanOrEqual(375);

    // Every width between a phone and a desktop shows them whole too: tables, or reflowed rows.
    const cut: string[] = [];
    const layouts: string[] = [];
    for (const width of [420, 480, 520, 560, 600, 640, 656, 720, 800, 880, 920, 1024, 1040])
      for (const [name, html] of [
        ['report', page],
        ['dashboard', dashboardPage],
      ] as const) {
        const shot = width === 600 ? `${name}-slow-600` : undefined;
        const { clipped, scrollWidth, reflowed } = await openOffline(html, width, shot);
        if (clipped.length || scrollWidth > width)
          cut.push(`${name} at ${width}: ${clipped.join(', ')} (${scrollWidth})`);
        if (name === 'report' && (width === 1024 || width === 1040)) layouts.push(`${width}: ${reflowed.steps}`);
      }
    expect(cut).toEqual([]);
    // The report's steps reflow up to 64rem (1024 px), and are a table beyond.
    expect(layouts).toEqual(['1024: block', '1040: table-row']);
  });

  it('puts two tests side by side, and answers the same data as JSON', async () => {
    await ended;
    const res = await fetch(`${target.baseUrl}/api/v1/load-testing/report/${ids[0]}?compare=${ids[1]}`, {
      headers: { 'X-API-Key': key },
    });
    expect(res.status).toBe(200);
    const { requests, drawn, text } = await openOffline(await res.text(), 1280, 'load-report-compare-1280');
    expect(requests).toHaveLength(1);
    expect(drawn[0]!.lines.map((l) => l.line)).toEqual(['A sent', 'B sent']);
    expect(drawn[1]!.lines.map((l) => l.line)).toEqual(['A p50', 'A p95', 'A p99', 'B p50', 'B p95', 'B p99']);
    expectReadable(drawn);
    expect(text).toContain('B against A');

    const json = await call(target, 'GET', `/api/v1/load-testing/report/${ids[0]}?compare=${ids[1]}&format=json`, {
      key,
    });
    expect(json.status).toBe(200);
    expect(json.body.tests.map((t: any) => t.test_id)).toEqual(ids);
    const results = (await calls.results(ids[1]!)).body.results;
    expect(json.body.tests[1]).toMatchObject({
      status: 'completed',
      verdict: null,
      summary: { total_requests: results.total_requests, p95_response_time: results.p95_response_time },
      series: { requests_per_second: results.requests_per_second },
    });
    // Each second's p95 as the series answers it.
    const series = await fetch(`${target.baseUrl}/api/v1/load-testing/series/${ids[1]}`, {
      headers: { 'X-API-Key': key },
    });
    const rows = (await series.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json.body.tests[1].series.p95_response_time_per_second).toEqual(rows.map((r) => r.p95_response_time));
    expect(rows.filter((r) => r.p95_response_time >= 10).length).toBeGreaterThanOrEqual(9); // the target's 10 ms
    expect(json.body.tests[0]).toMatchObject({
      verdict: 'passed',
      thresholds: [
        { threshold: 'p95 < 1000', pass: true },
        { threshold: 'error_rate < 1', pass: true },
      ],
    });
    // The throughput of B (80/s) against A's (40/s): about +100 %.
    expect(json.body.tests[1].summary.throughput / json.body.tests[0].summary.throughput).toBeGreaterThan(1.8);
  });

  it("refuses another user's test, itself as the comparison and a bad format, naming the field", async () => {
    await ended;
    const stranger = await newAccount(target);
    expectErrorShape(await call(target, 'GET', `/api/v1/load-testing/report/${ids[0]}`, { key: stranger.key }), 404);
    expectErrorShape(
      await call(target, 'GET', `/api/v1/load-testing/report/${ids[0]}?compare=${ids[0]}`, { key }),
      400,
    );
    expectErrorShape(
      await call(target, 'GET', `/api/v1/load-testing/report/${ids[0]}?compare=${ids[1]}`, { key: stranger.key }),
      404,
    );
    const malformed = await call(target, 'GET', `/api/v1/load-testing/report/${ids[0]}?compare=not%20an%20id`, { key });
    expectErrorShape(malformed, 400);
    expect(malformed.body.message).toMatch(/compare: is not a load test id/);
    const format = await call(target, 'GET', `/api/v1/load-testing/report/${ids[0]}?format=pdf`, { key });
    expectErrorShape(format, 400);
    expect(format.body.message).toMatch(/format: must be html or json/);
  });

  it(
    "shows an ended test's seconds and phases as the report does, " +
      'a block a phase on a phone, and links the report',
    async () => {
      await ended;
      for (const width of [1280, 375]) {
        const { page, context } = await dashboard(width);
        await page.goto(`/dashboard/load-tests/${ids[0]}`);
        const drawn = await shownCharts(page);
        expect(drawn.map((d) => [d.chart, d.shown])).toEqual(
          ['requests', 'latency', 'errors'].map((c) => [c, [width === 375 ? 'narrow' : 'wide']]),
        );
        expectReadable(drawn);
        expect(drawn[1]!.lines.map((l) => l.line)).toEqual(['p50', 'p95', 'p99']);
        expect(drawn[1]!.lines[1]!.points).toBeGreaterThanOrEqual(9);
        // The phases: a row per phase, a column per statistic; on a phone a block a phase, its figures
        // side by side, each after its statistic's name, as the report shows them.
        expect(await page.locator('#load-phases thead th').allTextContents()).toEqual(PHASE_TABLE_COLUMNS);
        expect(await page.locator('#load-phases tbody td[data-label="Phase"]').allTextContents()).toEqual(
          PHASE_TABLE_ROWS,
        );
        const display = (selector: string) =>
          page
            .locator(selector)
            .first()
            .evaluate((e) => getComputedStyle(e).display);
        expect([await display('#load-phases tbody tr'), await display('#load-phases td.n')]).toEqual(
          width === 375 ? ['block', 'inline-block'] : ['table-row', 'table-cell'],
        );
        // (whole, without scrolling sideways in its box)
        expect(await page.locator('#load-phases').evaluate((t) => t.scrollWidth <= t.parentElement!.clientWidth)).toBe(
          true,
        );
        // The observed figures with their units.
        expect(await page.locator('#load-thresholds tbody tr').allTextContents()).toEqual([
          expect.stringMatching(/^p95 < 1000[\d.,]+\u00a0mspass$/),
          expect.stringMatching(/^error_rate < 1[\d.,]+\u00a0%pass$/),
        ]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await page.screenshot({ path: path.join(SHOTS, `load-test-ended-${width}.png`), fullPage: true });
        if (width === 1280) {
          expect(await page.locator('#load-report').getAttribute('href')).toBe(
            `/dashboard/load-tests/${ids[0]}/report`,
          );
          await page.selectOption('#compare', ids[1]!);
          await page.getByRole('button', { name: 'Compare' }).click();
          await page.waitForURL(`**/dashboard/load-tests/${ids[0]}/report?compare=${ids[1]}`);
          expect(await page.locator('figure[data-chart="requests"] svg.wide polyline').count()).toBe(2);
        }
        await context.close();
      }
    },
  );

  it("shows a running test's last second's rate beside its average, each labelled", async () => {
    await ended; // (a page drawn in the browser while they ran would slow them: the report's thresholds are theirs)
    const started = await calls.start(pacedTest(`${site.url}/delay/10/live`));
    expect(started.status, started.text).toBe(202);
    const { page, context } = await dashboard(1280);
    await page.goto(`/dashboard/load-tests/${started.body.test_id}`);
    await expect.poll(() => page.locator('#load-rate-now').textContent(), { timeout: 15_000 }).toMatch(/^\d+(\.\d+)?$/);
    expect(await page.locator('#load-totals').textContent()).toMatch(
      new RegExp(
        [
          '^Requests \\d+ · Now [\\d.]+ req\\/s \\(last second\\) · Average [\\d.]+ req\\/s \\(since the start\\) ·',
          ' Errors [\\d.]+ % · Mean latency [\\d.]+ ms$',
        ].join(''),
      ),
    );
    // Its charts, drawn by the same code as the report's, at the box's width.
    await expect.poll(() => page.locator('#load-chart svg.live').count()).toBe(3);
    expectReadable((await shownCharts(page)).filter((d) => d.chart !== 'errors'));
    await page.screenshot({ path: path.join(SHOTS, 'load-test-live-1280.png'), fullPage: true });
    await context.close();
  }, 40_000);
});
