// A load test's report: one HTML file, opened in Debian's chromium from a disk with the network off;
// nothing leaves the page and the charts are drawn; two tests side by side; the same data as JSON;
// and the dashboard's link to it. Refusals: a running test (409), another user's (404), itself as
// the comparison (400).
/// <reference lib="dom" />
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, expectErrorShape, newAccount, targets } from '../support/client.ts';
import { loadTestCalls } from '../support/load-tests.ts';
import { newUser, PASSWORD } from '../support/mcp.ts';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const target = targets()[0]!;

describe('load test report', () => {
  let browser: Browser;
  let site: LoadTarget;
  let user: { email: string; userId: number };
  let key: string;
  let calls: ReturnType<typeof loadTestCalls>;
  const ids: string[] = [];
  beforeAll(async () => {
    site = await startLoadTarget();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    user = await newUser(target);
    key = JSON.parse((await admin(target, ['create-key', '--email', user.email, '--plan', 'pro'])).stdout).api_key;
    calls = loadTestCalls(target, Promise.resolve({ key }));
    // Two small tests of the same target, one with thresholds: run at once, both ended.
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
    for (const id of ids) await calls.waitFor(id, (b) => b.status !== 'pending' && b.status !== 'running', 40_000);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /**
   * Opens a report saved to a file, with the network off, in a window `width` px wide, and answers
   * what the page asked for and drew (the lines and labels of the charts it shows at that width).
   */
  async function openOffline(htmlText: string, width = 1280) {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'report-')), 'report.html');
    fs.writeFileSync(file, htmlText);
    const context = await browser.newContext({ offline: true, viewport: { width, height: 900 } });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`file://${file}`);
    const drawn = await page.$$eval('figure[data-chart]', (figures) =>
      figures.map((f) => {
        const shown = [...f.querySelectorAll('svg')].filter((svg) => svg.getBoundingClientRect().width > 0);
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
          textHeights: shown.flatMap((svg) =>
            [...svg.querySelectorAll('text')].map((t) => t.getBoundingClientRect().height),
          ),
        };
      }),
    );
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    // The text as a reader sees it: innerText breaks lines between blocks, which the assertions read.
    // biome-ignore lint/performance/useDomNodeTextContent: textContent has no line breaks between blocks
    const text = await page.locator('main').innerText();
    await context.close();
    return { requests, drawn, text, scrollWidth };
  }

  it('is one HTML file that opens with the network off, asks for nothing and draws its charts', async () => {
    const res = await fetch(`${target.baseUrl}/api/v1/load-testing/report/${ids[0]}`, {
      headers: { 'X-API-Key': key },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.text();
    expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
    const { requests, drawn, text } = await openOffline(body);
    expect(requests).toEqual([expect.stringMatching(/^file:\/\/.*report\.html$/)]);
    expect(drawn.map((d) => d.chart)).toEqual(['requests', 'latency', 'errors']);
    for (const d of drawn)
      for (const l of d.lines) {
        expect(l.points).toBeGreaterThanOrEqual(9); // a point per second of the test
        expect(l.width).toBeGreaterThan(100); // drawn across the chart
      }
    expect(text).toContain('p95 < 1000');
    expect(text).toMatch(/passed/);
    expect(text).toContain('ttfb p95 (ms)');
    expect(text).toMatch(/Status codes\s*\n\s*Figure\s+\S+\s*\n\s*200\s/); // the status codes table's row
    expect(drawn.map((d) => d.shown)).toEqual([['wide'], ['wide'], ['wide']]);

    // On a phone: the charts drawn for its width, their labels as large as on a wide page, no sideways scroll.
    const phone = await openOffline(body, 375);
    expect(phone.drawn.map((d) => d.shown)).toEqual([['narrow'], ['narrow'], ['narrow']]);
    for (const d of phone.drawn) {
      for (const l of d.lines) expect(l.width).toBeGreaterThan(250);
      expect(Math.min(...d.textHeights)).toBeGreaterThanOrEqual(10);
    }
    expect(phone.scrollWidth).toBeLessThanOrEqual(375);
  });

  it('puts two tests side by side, and answers the same data as JSON', async () => {
    const res = await fetch(`${target.baseUrl}/api/v1/load-testing/report/${ids[0]}?compare=${ids[1]}`, {
      headers: { 'X-API-Key': key },
    });
    expect(res.status).toBe(200);
    const { requests, drawn, text } = await openOffline(await res.text());
    expect(requests).toHaveLength(1);
    expect(drawn[0]!.lines.map((l) => l.line)).toEqual([`A ${ids[0]}`, `B ${ids[1]}`]);
    expect(drawn[1]!.lines).toHaveLength(4); // mean and slowest of each
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
    const format = await call(target, 'GET', `/api/v1/load-testing/report/${ids[0]}?format=pdf`, { key });
    expectErrorShape(format, 400);
    expect(format.body.message).toMatch(/format: must be html or json/);
  });

  it('is linked from the dashboard, with a comparison picker', async () => {
    const context = await browser.newContext({ baseURL: target.baseUrl });
    const page = await context.newPage();
    await page.goto('/dashboard');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/keys');
    await page.goto(`/dashboard/load-tests/${ids[0]}`);
    expect(await page.locator('#load-report').getAttribute('href')).toBe(`/dashboard/load-tests/${ids[0]}/report`);
    await page.selectOption('#compare', ids[1]!);
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL(`**/dashboard/load-tests/${ids[0]}/report?compare=${ids[1]}`);
    expect(await page.locator('figure[data-chart="requests"] svg.wide polyline').count()).toBe(2);
    await context.close();
  });
});
