// The load test's MCP App (the ui extension): load_test_start and load_test_status name its ui://
// resource; read through a real MCP client signed in by OAuth, its HTML runs in Debian's chromium under
// the extension's own host SDK (test/support/mcp-app-host.ts: a sandboxed iframe, nothing remote, the
// network cut), which forwards the App's tool calls to the MCP client. Fed a running test's real
// load_test_status result, the App shows its figures, then reads load_test_status itself every 2 s and
// its figures move with the test, reading nothing while scrolled out of the host's view; its Stop asks
// the host to call load_test_stop with that id, and a running status read before the stop but delivered
// after it does not give the button back; the test stops, the App shows it stopped and reads no more.
// Reads that keep failing end after five, and a test past its expected end is not read. Screenshots go
// to SHOTS_DIR (default test-artifacts/screenshots) as mcp-app-*.png.
/// <reference lib="dom" />
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { hostApp, servedApp } from '../support/mcp-app-host.ts';
import { admin, targets } from '../support/client.ts';
import { loadTestCalls, pacedTest } from '../support/load-tests.ts';
import { connectedClient, newUser } from '../support/mcp.ts';
import { ROOT } from '../support/processes.ts';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';

const SHOTS = process.env.SHOTS_DIR ?? path.join(ROOT, 'test-artifacts', 'screenshots');
const target = targets()[0]!;
const APP_URI = 'ui://netops/load-test.html';

describe('the load test MCP App', () => {
  let browser: Browser;
  let site: LoadTarget;
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    site = await startLoadTarget();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('shows a running test from its status and its Stop calls load_test_stop with the test id', async () => {
    const user = await newUser(target, 'enterprise');
    const key = JSON.parse(
      (await admin(target, ['create-key', '--email', user.email, '--plan', 'enterprise'])).stdout,
    ).api_key;
    const calls = loadTestCalls(target, Promise.resolve({ key }));
    const { client } = await connectedClient(target, user.email);

    // The tools name the App; the resource is the extension's HTML, with nothing to fetch.
    const html = await servedApp(client, APP_URI, ['load_test_start', 'load_test_status'], 'load_test_stop');

    // A test that runs for a minute: its first figures, as load_test_status answers them.
    const started = await calls.start(pacedTest(`${site.url}/delay/20/app`, { testDuration: 60 }));
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const testId: string = started.body.test_id;
    await calls.waitFor(testId, (b) => b.status === 'running' && b.metrics?.total_requests > 0, 40_000);
    const status = await client.callTool({ name: 'load_test_status', arguments: { test_id: testId } });
    const live = status.structuredContent as {
      status: string;
      progress: number;
      metrics: { throughput: number; p95_response_time: number; error_rate: number; total_requests: number };
    };
    expect(live.status).toBe('running');

    // The App's own reads of load_test_status wait until the figures it was given have been checked;
    // later, while `gate` is set, each read's answer (read at once) is held until the gate opens.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let gate: Promise<void> | null = null;
    let open = () => {};
    let held = 0;
    const closeGate = () => {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    };
    const host = await hostApp(browser, html, async (params) => {
      if (params.name !== 'load_test_status')
        return client.callTool({ name: params.name, arguments: params.arguments });
      await released;
      const result = await client.callTool({ name: params.name, arguments: params.arguments });
      const waitFor = gate;
      if (waitFor) {
        held += 1;
        await waitFor;
      }
      return result;
    });
    const { app, bridge, calls: toolCalls } = host;
    await bridge.sendToolInput({ arguments: { test_id: testId } });
    await bridge.sendToolResult(status as Parameters<typeof bridge.sendToolResult>[0]);

    await expect.poll(() => app.locator('#status').textContent()).toBe('running');
    expect(await app.locator('#test').textContent()).toBe(`Load test ${testId}`);
    expect(await app.locator('#rate').textContent()).toBe(live.metrics.throughput.toFixed(1));
    expect(await app.locator('#p95').textContent()).toBe(live.metrics.p95_response_time.toFixed(0));
    expect(await app.locator('#errors').textContent()).toBe(live.metrics.error_rate.toFixed(2));
    expect(await app.locator('#requests').textContent()).toBe(String(live.metrics.total_requests));
    expect(await app.locator('#progress-text').textContent()).toBe(`${live.progress}%`);
    expect(await app.locator('#stop').isEnabled()).toBe(true);

    // Showing a running test, the App reads its status itself, and its figures move with the test.
    await expect.poll(() => toolCalls.map((c) => c.name), { timeout: 10_000 }).toEqual(['load_test_status']);
    expect(toolCalls[0]!.arguments).toEqual({ test_id: testId });
    release();
    await expect
      .poll(() => app.locator('#requests').textContent(), { timeout: 15_000 })
      .not.toBe(String(live.metrics.total_requests));
    expect(Number(await app.locator('#requests').textContent())).toBeGreaterThan(live.metrics.total_requests);
    await expect.poll(() => toolCalls.length, { timeout: 10_000 }).toBeGreaterThan(2);

    // Scrolled out of the host's view (the tab still visible), the App reads nothing; back, it reads again.
    await host.setOnScreen(false);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const offScreen = toolCalls.length;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(toolCalls.length).toBe(offScreen);
    await host.setOnScreen(true);
    await expect.poll(() => toolCalls.length, { timeout: 10_000 }).toBeGreaterThan(offScreen);

    await host.screenshot(path.join(SHOTS, 'mcp-app-800.png'), 800);
    await host.screenshot(path.join(SHOTS, 'mcp-app-375.png'), 375);
    await host.setTheme('dark');
    await host.screenshot(path.join(SHOTS, 'mcp-app-dark-375.png'), 375);
    await host.setTheme('light');

    // A read answered "running" before the stop but delivered after it does not give Stop back.
    closeGate();
    await expect.poll(() => held, { timeout: 10_000 }).toBe(1);
    const late = open;
    await app.locator('#stop').click();
    await expect.poll(() => app.locator('#message').textContent(), { timeout: 15_000 }).toMatch(/^Stop requested/);
    expect(await app.locator('#status').textContent()).toBe('stopping');
    closeGate();
    late();
    // Its next read shows the late answer has been taken in.
    await expect.poll(() => held, { timeout: 10_000 }).toBe(2);
    expect(await app.locator('#status').textContent()).toBe('stopping');
    expect(await app.locator('#stop').isDisabled()).toBe(true);
    gate = null;
    open();

    const stops = toolCalls.filter((c) => c.name === 'load_test_stop');
    expect(stops).toMatchObject([{ name: 'load_test_stop', arguments: { test_id: testId } }]);
    expect(stops).toHaveLength(1);
    expect(toolCalls.filter((c) => c.name !== 'load_test_stop').every((c) => c.name === 'load_test_status')).toBe(true);
    expect(await app.locator('#stop').isDisabled()).toBe(true);
    // Its own reads show the test end, and then it stops reading.
    await expect.poll(() => app.locator('#status').textContent(), { timeout: 30_000 }).toBe('stopped');
    const ended = await calls.waitFor(testId, (b) => b.status !== 'running' && b.status !== 'pending', 30_000);
    expect(ended.status).toBe('stopped');
    const reads = toolCalls.length;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(toolCalls.length).toBe(reads);
    await host.screenshot(path.join(SHOTS, 'mcp-app-stopped.png'), 640);
    expect(host.outside).toEqual([]);
    expect(host.errors).toEqual([]);
    await host.page.close();

    // Reads that keep failing (here: a test id the account has none of) end after five, with the reason.
    const failing = await hostApp(browser, html, (params) =>
      client.callTool({ name: params.name, arguments: params.arguments }),
    );
    await failing.bridge.sendToolResult({
      content: [],
      structuredContent: { ...live, test_id: `${testId}x` },
    } as Parameters<typeof bridge.sendToolResult>[0]);
    await expect
      .poll(() => failing.app.locator('#message').textContent(), { timeout: 20_000 })
      .toMatch(/^Stopped refreshing: .+/);
    expect(failing.calls).toHaveLength(5);
    expect(failing.calls.every((c) => c.name === 'load_test_status')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(failing.calls).toHaveLength(5);
    await failing.screenshot(path.join(SHOTS, 'mcp-app-stopped-refreshing-375.png'), 375);
    await failing.page.close();

    // A test shown as running past its expected end (and a minute more) is not read at all.
    const stale = await hostApp(browser, html, (params) =>
      client.callTool({ name: params.name, arguments: params.arguments }),
    );
    const past = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
    await stale.bridge.sendToolResult({
      content: [],
      structuredContent: { ...live, started_at: past(200), estimated_completion: past(140) },
    } as Parameters<typeof bridge.sendToolResult>[0]);
    await expect
      .poll(() => stale.app.locator('#message').textContent(), { timeout: 10_000 })
      .toBe('Stopped refreshing: past its expected end; ask again for the latest.');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(stale.calls).toEqual([]);
    expect(stale.errors).toEqual([]);
    await stale.page.close();
  }, 180_000);
});
