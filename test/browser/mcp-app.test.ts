// The load test's MCP App (the ui extension): load_test_start and load_test_status name its ui://
// resource; read through a real MCP client signed in by OAuth, its HTML runs in Debian's chromium inside
// a sandboxed iframe (scripts only, opaque origin) under a host page whose policy allows nothing remote,
// with the network cut. A small host here speaks the extension's postMessage protocol (JSON-RPC:
// ui/initialize, ui/notifications/initialized, ui/notifications/tool-result, tools/call) and forwards
// the App's tool calls to the MCP client. Fed a running test's real load_test_status result, the App
// shows its figures; its Stop asks the host to call load_test_stop with that id, and the test stops.
// A screenshot goes to SHOTS_DIR (default test-artifacts/screenshots) as mcp-app.png.
/// <reference lib="dom" />
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { admin, targets } from '../support/client.ts';
import { loadTestCalls } from '../support/load-tests.ts';
import { connectedClient, newUser } from '../support/mcp.ts';
import { ROOT } from '../support/processes.ts';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';

const SHOTS = process.env.SHOTS_DIR ?? path.join(ROOT, 'test-artifacts', 'screenshots');
const target = targets()[0]!;
const APP_URI = 'ui://netops/load-test.html';
const APP_MIME = 'text/html;profile=mcp-app';

/** The host page: nothing remote may load (a host's usual policy for an App that asks for no domains). */
const HOST_PAGE = `<!doctype html><html><head><meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"></head>
<body style="margin:0"><iframe id="app" sandbox="allow-scripts" style="border:0;width:100%;height:260px"></iframe></body></html>`;

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
    const { tools } = await client.listTools();
    for (const name of ['load_test_start', 'load_test_status']) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?._meta, name).toMatchObject({ ui: { resourceUri: APP_URI }, 'ui/resourceUri': APP_URI });
    }
    expect(tools.find((t) => t.name === 'load_test_stop')?._meta?.ui).toBeUndefined();
    const { resources } = await client.listResources();
    expect(resources.filter((r) => r.uri === APP_URI)).toMatchObject([{ mimeType: APP_MIME }]);
    const read = await client.readResource({ uri: APP_URI });
    expect(read.contents).toHaveLength(1);
    const content = read.contents[0] as { uri: string; mimeType: string; text: string };
    expect(content).toMatchObject({ uri: APP_URI, mimeType: APP_MIME });
    expect(content.text).toMatch(/^<!doctype html>/);
    expect(content.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<iframe|<img/i);

    // A test that runs for a minute: its first figures, as load_test_status answers them.
    const started = await calls.start({
      targetUrl: `${site.url}/delay/20/app`,
      httpMethod: 'GET',
      concurrentUsers: 2,
      requestsPerSecond: 20,
      testDuration: 60,
      rampUpTime: 0,
    });
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

    const page = await browser.newPage({ viewport: { width: 640, height: 260 } });
    const outside: string[] = [];
    await page.route('**/*', (route) => {
      outside.push(route.request().url());
      return route.abort();
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The App's tool calls, forwarded to the MCP server as a host does.
    const forwarded: { name: string; arguments?: Record<string, unknown> }[] = [];
    await page.exposeFunction(
      'callServerTool',
      async (params: { name: string; arguments?: Record<string, unknown> }) => {
        forwarded.push(params);
        // The App's _meta (its own progress token) is the bridge's, not the server's.
        return client.callTool({ name: params.name, arguments: params.arguments });
      },
    );
    await page.setContent(HOST_PAGE);
    await page.evaluate((html) => {
      const w = window as unknown as {
        received: { method?: string }[];
        initialized: boolean;
        callServerTool: (p: unknown) => Promise<unknown>;
      };
      w.received = [];
      w.initialized = false;
      const frame = document.getElementById('app') as HTMLIFrameElement;
      window.addEventListener('message', async (event) => {
        if (event.source !== frame.contentWindow) return;
        const m = event.data as { jsonrpc: '2.0'; id?: number; method?: string; params?: any };
        w.received.push(m);
        const reply = (result: unknown) => frame.contentWindow!.postMessage({ jsonrpc: '2.0', id: m.id, result }, '*');
        if (m.method === 'ui/initialize')
          reply({
            protocolVersion: m.params.protocolVersion,
            hostInfo: { name: 'test host', version: '1.0.0' },
            hostCapabilities: { serverTools: {} },
            hostContext: { theme: 'light' },
          });
        else if (m.method === 'ui/notifications/initialized') w.initialized = true;
        else if (m.method === 'tools/call') reply(await w.callServerTool(m.params));
        else if (m.id !== undefined) reply({});
      });
      frame.srcdoc = html;
    }, content.text);
    await page.waitForFunction(() => (window as unknown as { initialized: boolean }).initialized, null, {
      timeout: 15_000,
    });
    await page.evaluate((result) => {
      const frame = document.getElementById('app') as HTMLIFrameElement;
      frame.contentWindow!.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: result }, '*');
    }, status);

    const app = page.frameLocator('#app');
    await expect.poll(() => app.locator('#status').textContent()).toBe('running');
    expect(await app.locator('#test').textContent()).toBe(`Load test ${testId}`);
    expect(await app.locator('#rate').textContent()).toBe(live.metrics.throughput.toFixed(1));
    expect(await app.locator('#p95').textContent()).toBe(live.metrics.p95_response_time.toFixed(0));
    expect(await app.locator('#errors').textContent()).toBe(live.metrics.error_rate.toFixed(2));
    expect(await app.locator('#requests').textContent()).toBe(String(live.metrics.total_requests));
    expect(await app.locator('#progress-text').textContent()).toBe(`${live.progress}%`);
    expect(await app.locator('#stop').isEnabled()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'mcp-app.png') });

    await app.locator('#stop').click();
    await expect.poll(() => app.locator('#message').textContent(), { timeout: 15_000 }).toMatch(/^Stop requested/);
    expect(forwarded).toMatchObject([{ name: 'load_test_stop', arguments: { test_id: testId } }]);
    expect(forwarded).toHaveLength(1);
    const sent = await page.evaluate(() => (window as unknown as { received: { method?: string }[] }).received);
    expect(sent.filter((m) => m.method === 'tools/call')).toMatchObject([
      { params: { name: 'load_test_stop', arguments: { test_id: testId } } },
    ]);
    expect(await app.locator('#status').textContent()).toBe('stopped');
    expect(await app.locator('#stop').isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'mcp-app-stopped.png') });
    const ended = await calls.waitFor(testId, (b) => b.status !== 'running' && b.status !== 'pending', 30_000);
    expect(ended.status).toBe('stopped');
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
