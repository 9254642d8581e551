// The captures MCP App (the ui extension): webhook_wait_for_request names its ui:// resource, which
// resources/list and resources/read serve as the extension's HTML. Against the running service, with a
// real webhook: the App, rendered in Debian's chromium under the extension's own host SDK
// (test/support/mcp-app-host.ts: a sandboxed iframe, nothing remote, the network cut), is given the
// wait's arguments while a real wait runs; it reads webhook_requests (metadata only, since the wait
// began) through the host every 2 s and lists a request posted after the wait's call but before the App
// had its arguments, and one posted to the capture URL that the wait does not match, live (not one
// posted well before the wait); once the wait answers
// the matching one, the App shows it with its headers and its body as text (markup in it stays inert)
// and reads no more. Screenshots go to SHOTS_DIR (default test-artifacts/screenshots).
/// <reference lib="dom" />
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { targets } from '../support/client.ts';
import { hostApp, servedApp } from '../support/mcp-app-host.ts';
import { connectedClient, newUser } from '../support/mcp.ts';
import { ROOT } from '../support/processes.ts';

const SHOTS = process.env.SHOTS_DIR ?? path.join(ROOT, 'test-artifacts', 'screenshots');
const target = targets()[0]!;
const APP_URI = 'ui://netops/webhook-captures.html';
/** Markup a sender might post: shown as text, it loads nothing and runs nothing. */
const HOSTILE = '{"order":42,"note":"<img src=x onerror=\\"parent.postMessage(1,\'*\')\\"><b>bold</b>"}';

describe('the webhook captures MCP App', () => {
  let browser: Browser;
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('lists the captures live while the wait runs, then shows the matched one as text', async () => {
    const user = await newUser(target);
    const { client } = await connectedClient(target, user.email);
    const created = await client.callTool({ name: 'webhook_create', arguments: {} });
    expect(created.isError, JSON.stringify(created)).toBeFalsy();
    const { webhook_id: webhookId, webhook_url: webhookUrl } = created.structuredContent as {
      webhook_id: string;
      webhook_url: string;
    };
    // One capture from well before the wait: not an arrival.
    expect((await fetch(`${webhookUrl}/earlier`, { method: 'POST', body: 'old' })).status).toBeLessThan(300);
    const earlierAt = Date.now();

    const html = await servedApp(client, APP_URI, ['webhook_wait_for_request'], 'webhook_requests');
    const answered: { requests?: Record<string, unknown>[] }[] = [];
    const host = await hostApp(browser, html, async (params) => {
      const result = await client.callTool({ name: params.name, arguments: params.arguments });
      answered.push(result.structuredContent as { requests?: Record<string, unknown>[] });
      return result;
    });
    const { app, bridge, calls } = host;

    const args = { webhook_id: webhookId, method: 'POST', header: 'x-order', timeout: 60 };
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, earlierAt + 7000 - Date.now())));
    const waited = client.callTool({ name: 'webhook_wait_for_request', arguments: args }, undefined, {
      timeout: 90_000,
    });
    // One that arrives after the wait's call but before the App has its arguments: an arrival all the same.
    expect((await fetch(`${webhookUrl}/between`, { method: 'PUT', body: 'b' })).status).toBeLessThan(300);
    await bridge.sendToolInput({ arguments: args });
    await expect.poll(() => app.locator('#hook').textContent()).toBe(`Webhook ${webhookId}`);
    expect(await app.locator('#status').textContent()).toBe('waiting');
    expect(await app.locator('#filters').textContent()).toBe('Waiting up to 60 s for a request: POST, header x-order.');
    // It reads the captures' metadata since the wait began, without their headers and bodies.
    await expect
      .poll(() => app.locator('#captures li .path').allTextContents(), { timeout: 10_000 })
      .toEqual(['/between']);
    expect(calls[0]).toMatchObject({
      name: 'webhook_requests',
      arguments: { webhook_id: webhookId, limit: 20, include_bodies: false, since: expect.any(String) },
    });
    expect(answered[0]!.requests).toHaveLength(1);
    expect(answered[0]!.requests![0]).toMatchObject({ path: `/webhook/${webhookId}/between`, body_size: 1 });
    expect(answered[0]!.requests![0]).not.toHaveProperty('body');
    expect(answered[0]!.requests![0]).not.toHaveProperty('headers');

    // A request the wait does not match (no x-order): the App lists it as it comes, the wait goes on.
    const unmatched = await fetch(`${webhookUrl}/pings?n=1`, { method: 'PUT', body: 'ping' });
    expect(unmatched.status).toBeLessThan(300);
    await expect
      .poll(() => app.locator('#captures li .path').allTextContents(), { timeout: 15_000 })
      .toEqual(['/pings?n=1', '/between']);
    expect(await app.locator('#captures li .method').allTextContents()).toEqual(['PUT', 'PUT']);
    expect(await app.locator('#captures li .facts').first().textContent()).toMatch(/4 B.*answered 200/);
    expect(calls.every((c) => c.name === 'webhook_requests')).toBe(true);
    // Later reads ask only from about the newest listed on.
    const since = (i: number) => Date.parse(String(calls[i]!.arguments!.since));
    expect(since(calls.length - 1)).toBeGreaterThan(since(0));
    expect(answered.flatMap((a) => a.requests ?? []).some((r) => 'body' in r)).toBe(false);
    await host.screenshot(path.join(SHOTS, 'mcp-app-captures-waiting-375.png'), 375);

    // The matching one: the wait answers it, and the host passes the App its result.
    const matched = await fetch(`${webhookUrl}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-order': '<i>42</i>' },
      body: HOSTILE,
    });
    expect(matched.status).toBeLessThan(300);
    const result = await waited;
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const request = (result.structuredContent as { request: { id: number } }).request;
    await bridge.sendToolResult(result as Parameters<typeof bridge.sendToolResult>[0]);

    await expect.poll(() => app.locator('#status').textContent()).toBe('matched');
    expect(await app.locator('#matched').isVisible()).toBe(true);
    expect(await app.locator('#matched-title').textContent()).toBe(
      `Matched request ${request.id}: POST /webhook/${webhookId}/orders`,
    );
    expect(await app.locator('#body').textContent()).toBe(HOSTILE);
    const headers = await app
      .locator('#headers tr')
      .evaluateAll((rows) => rows.map((r) => [r.querySelector('th')!.textContent, r.querySelector('td')!.textContent]));
    expect(headers).toContainEqual(['x-order', '<i>42</i>']);
    expect(headers).toContainEqual(['content-type', 'application/json']);
    // The sender's markup is text: no element of it exists in the App.
    expect(await app.locator('img, b, i').count()).toBe(0);
    // Listed below the webhook's path (the capture from before the wait is no arrival), the matched one marked.
    expect(await app.locator('#captures li .path').allTextContents()).toEqual(['/orders', '/pings?n=1', '/between']);
    const marked = app.locator('#captures li.matched .path');
    expect(await marked.getAttribute('title')).toBe(`/webhook/${webhookId}/orders`);

    // The wait has ended: the App reads no more.
    const reads = calls.length;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(calls.length).toBe(reads);

    await host.screenshot(path.join(SHOTS, 'mcp-app-captures-800.png'), 800);
    await host.screenshot(path.join(SHOTS, 'mcp-app-captures-375.png'), 375);
    await host.setTheme('dark');
    await host.screenshot(path.join(SHOTS, 'mcp-app-captures-dark-800.png'), 800);
    await host.screenshot(path.join(SHOTS, 'mcp-app-captures-dark-375.png'), 375);
    expect(host.outside).toEqual([]);
    expect(host.errors).toEqual([]);
    await host.page.close();
  }, 120_000);
});
