// The dashboard in a real browser (Debian's chromium through playwright-core, headless, no browser
// download): sign in, create an API key and use it, create a webhook and watch a capture arrive live,
// disconnect a connected app, read the API reference; at phone width too. Screenshots of each page go
// to test-artifacts/screenshots.
/// <reference lib="dom" />
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormSignInClient } from '../../scripts/oauth-forms.ts';
import { call, newAccount, targets } from '../support/client.ts';
import { authorizeUrl, newUser, PASSWORD, registerClient } from '../support/mcp.ts';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';
import { ROOT } from '../support/processes.ts';
import { startReceiver, type Received } from '../support/receiver.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'screenshots');
const target = targets()[0]!;

describe('dashboard in a browser', () => {
  let browser: Browser;
  let page: Page;
  let user: { email: string; userId: number };
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: target.baseUrl, viewport: { width: 1200, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: target.baseUrl });
    page = await context.newPage();
    user = await newUser(target);
  });
  afterAll(async () => {
    await browser?.close();
  });
  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  it('signs in and creates an API key that works, shown once', async () => {
    await page.goto('/dashboard');
    await expect.poll(() => page.url()).toContain('/dashboard/sign-in');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/keys');
    await expect.poll(() => page.getByText('Plan pro').count()).toBe(1);
    await shot('01-keys');

    await page.getByLabel('Name of the new key').fill('from the browser');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!.trim();
    expect(key).toMatch(/^ntk_/);
    await shot('02-key-created');
    expect((await call(target, 'GET', '/api/v1/network/my-webhooks', { key })).status).toBe(200);
    await page.goto('/dashboard/keys');
    expect(await page.content()).not.toContain(key); // shown once only
    expect(await page.getByText('from the browser').count()).toBe(1);
  });

  it('creates a webhook and shows a capture live, as text, with copy-as-curl', async () => {
    await page.goto('/dashboard/webhooks');
    await page.getByRole('button', { name: 'Create a webhook' }).click();
    await page.waitForURL(/\/dashboard\/webhooks\/[A-Za-z0-9_-]+$/);
    const webhookId = page.url().split('/').pop()!;
    await expect.poll(() => page.locator('#live-status').textContent()).toMatch(/^Live/);

    // The settings are folded away: the captures start in the first screenful.
    expect(await page.locator('details.settings-panel').getAttribute('open')).toBeNull();
    const evil = '<img src=x onerror="window.__owned=1">';
    const sentAt = Date.now();
    await fetch(`${target.baseUrl}/webhook/${webhookId}/orders?src=browser`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': 'sig-1' },
      body: JSON.stringify({ order: 42, note: evil }),
    });
    // In the list, inside the first viewport, within 2 s of being sent.
    const item = page.locator('#capture-list a').first();
    await expect.poll(() => item.count(), { timeout: 2000 }).toBe(1);
    expect(Date.now() - sentAt).toBeLessThan(2000);
    const box = (await item.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(900);
    expect(await item.locator('.method').textContent()).toBe('POST');
    expect(await item.locator('time').textContent()).toMatch(/^\d+ s ago$/);
    const card = page.locator('article.req').first();
    await expect.poll(() => card.locator('pre.body').textContent(), { timeout: 10_000 }).toContain('"order": 42');
    expect(await card.locator('pre.body').textContent()).toContain('<img src=x onerror='); // shown as text...
    // ...never run
    expect(await page.evaluate(() => (window as unknown as { __owned?: number }).__owned)).toBeUndefined();
    await card.getByRole('button', { name: 'Copy as curl' }).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain(`curl -X POST '${target.baseUrl}/webhook/${webhookId}/orders?src=browser'`);
    expect(copied).toContain(`-H 'x-signature: sig-1'`);
    // as sent, live
    expect(await card.locator('code.path').textContent()).toBe(`/webhook/${webhookId}/orders?src=browser`);
    await shot('03-webhook-live');

    // A reload renders the same request on the server side.
    await page.reload();
    expect(await page.locator('article.req pre.body').first().textContent()).toContain('"order": 42');
    expect(await page.locator('article.req code.path').first().textContent()).toBe(
      `/webhook/${webhookId}/orders?src=browser`,
    ); // and rendered by the server
    await page.goto('/dashboard/webhooks');
    expect(await page.getByRole('cell', { name: '1', exact: true }).count()).toBeGreaterThan(0);
  });

  it("runs no capture URL's answer as a page's script or stylesheet, typed as JavaScript or CSS", async () => {
    // Any user's webhook may answer JavaScript; capture URLs share the dashboard's origin here.
    const other = await newAccount(target);
    const answering = async (type: string, body: string) => {
      const created = await call(target, 'POST', '/api/v1/network/my-webhook-create', {
        key: other.key,
        json: { response: { status: 200, headers: { 'Content-Type': type }, body } },
      });
      expect(created.status, created.text).toBe(201);
      return created.body.webhook_url as string;
    };
    const script = await answering('text/javascript', 'window.__owned = 1;');
    const sheet = await answering('text/css', 'body { background: rgb(255, 0, 0) !important; }');
    expect((await fetch(script)).headers.get('content-type')).toBe('text/javascript');
    await page.goto('/dashboard/webhooks');
    // As markup of a sender's would add them, had any reached the page.
    const loads = await page.evaluate(
      ([src, href]) => {
        const load = (el: HTMLScriptElement | HTMLLinkElement) =>
          new Promise<string>((resolve) => {
            el.onload = () => resolve('loaded');
            el.onerror = () => resolve('blocked');
            document.head.append(el);
          });
        const s = document.createElement('script');
        s.src = src!;
        const l = document.createElement('link');
        l.rel = 'stylesheet';
        l.href = href!;
        return Promise.all([load(s), load(l)]);
      },
      [script, sheet],
    );
    expect(loads).toEqual(['blocked', 'blocked']);
    expect(await page.evaluate(() => (window as unknown as { __owned?: number }).__owned)).toBeUndefined();
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe('rgb(255, 0, 0)');
  });

  it("sets a webhook's answer and forwarding, shows each delivery, searches, exports and replays", async () => {
    const received: Received[] = [];
    const receiver = await startReceiver('127.0.0.1', received, (_got, res) => res.writeHead(204).end());
    try {
      await page.goto('/dashboard/webhooks');
      await page.getByRole('button', { name: 'Create a webhook' }).click();
      await page.waitForURL(/\/dashboard\/webhooks\/[A-Za-z0-9_-]+$/);
      const webhookId = page.url().split('/').pop()!;
      await page.getByText('Settings', { exact: true }).click();
      await page.getByLabel('Status').fill('202');
      await page.getByLabel('Body', { exact: true }).fill('accepted');
      await page.getByLabel('Forward to').fill(`${receiver.url}/hooks`);
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect
        .poll(() => page.locator('.notice').textContent())
        .toContain(`new captures are forwarded to ${receiver.url}/hooks`);
      for (const [method, body] of [
        ['POST', 'alpha'],
        ['PUT', 'beta'],
      ]) {
        const sent = await fetch(`${target.baseUrl}/webhook/${webhookId}`, { method, body });
        expect([sent.status, await sent.text()]).toEqual([202, 'accepted']);
      }
      // Each capture's delivery, as the page shows it after a reload.
      await expect
        .poll(
          async () => {
            await page.goto(`/dashboard/webhooks/${webhookId}`);
            return page.locator('details.delivery summary').allTextContents();
          },
          { timeout: 30_000 },
        )
        .toEqual([
          expect.stringMatching(/^Forwarded: success after 1 attempt\(s\), last answer 204/),
          expect.stringMatching(/^Forwarded: success/),
        ]);
      expect(received.map((r) => r.body.toString()).sort()).toEqual(['alpha', 'beta']);
      await shot('03b-webhook-settings');

      await page.getByText('Search and filter', { exact: true }).click();
      await page.getByLabel('Body text').fill('bet');
      await page.getByRole('button', { name: 'Search' }).click();
      await expect.poll(() => page.locator('article.req pre.body').allTextContents()).toEqual(['beta']);
      const json = await page.request.get((await page.getByRole('link', { name: 'JSON' }).getAttribute('href'))!);
      expect(((await json.json()) as { requests: Array<{ body: string }> }).requests.map((r) => r.body)).toEqual([
        'beta',
      ]);
      const har = await page.request.get((await page.getByRole('link', { name: 'HAR' }).getAttribute('href'))!);
      expect(((await har.json()) as { log: { entries: unknown[] } }).log.entries).toHaveLength(1);

      await page.locator('article.req').first().getByRole('button', { name: 'Replay…' }).click();
      await page.getByRole('button', { name: 'Replay', exact: true }).click();
      await expect.poll(() => page.locator('.notice').textContent()).toMatch(/Replayed capture #\d+ to .*: 204 in/);
      expect(received.at(-1)!.body.toString()).toBe('beta');

      // The captures the search shows, as a load test's requests: the form filled with their replay,
      // the target and the users left to fill; started, it replays 'beta' to the receiver.
      const before = received.length;
      await page.goto(`/dashboard/webhooks/${webhookId}?q=bet`);
      await page.getByRole('link', { name: 'Load test with these captures' }).click();
      await page.waitForURL(/\/dashboard\/load-tests\?replay_webhook=/);
      expect(JSON.parse(await page.locator('#startBody').inputValue())).toEqual({
        replay: { webhook_id: webhookId, filter: { q: 'bet' }, speed: 1 },
      });
      expect(await page.locator('#startBody').isVisible()).toBe(true); // its options open
      expect(await page.locator('.notice').textContent()).toMatch(/^Replaying the webhook's captures/);
      await shot('03c-load-form-replay');
      await page.setViewportSize({ width: 375, height: 800 });
      await shot('03d-load-form-replay-375px');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await page.setViewportSize({ width: 1200, height: 900 });
      await page.getByLabel('Target URL').fill(`${receiver.url}/replayed`);
      await page.getByLabel(/^Concurrent users/).fill('1');
      await page.getByLabel(/^Duration/).fill('10');
      await page.getByRole('button', { name: 'Start the load test' }).click();
      await page.waitForURL(/\/dashboard\/load-tests\/[A-Za-z0-9_-]+$/);
      await expect
        .poll(() => received.slice(before).some((r) => r.url.startsWith('/replayed') && r.body.toString() === 'beta'), {
          timeout: 15_000,
        })
        .toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it("sets a webhook's response rules, lists them in order and tries a request against them", async () => {
    await page.goto('/dashboard/webhooks');
    await page.getByRole('button', { name: 'Create a webhook' }).click();
    await page.waitForURL(/\/dashboard\/webhooks\/[A-Za-z0-9_-]+$/);
    const webhookId = page.url().split('/').pop()!;
    await page.getByText('Settings', { exact: true }).click();
    const rules = [
      {
        match: { method: 'POST', body: { pointer: '/order/id', equals: 'dup-1' } },
        response: {
          status: 409,
          headers: { 'Content-Type': 'application/json' },
          body: '{"error":"order {{request.body./order/id}} exists"}',
        },
      },
      { match: { header: { authorization: false } }, response: { status: 401, body: 'token?' } },
    ];
    await page.getByLabel('Rules').fill(JSON.stringify(rules));
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toContain('2 response rules now answer first');
    await page.getByText('Settings', { exact: true }).click();
    expect(await page.locator('ol.rules li').allTextContents()).toEqual([
      'POST, body /order/id = "dup-1" → 409',
      'header authorization absent → 401',
    ]);
    expect(await page.locator('p.summary').textContent()).toContain(
      'answers by its 2 rules, else the default 200 JSON',
    );

    await page.getByText('Try the rules', { exact: true }).click();
    await page.getByLabel('Request headers').fill('Authorization: Bearer t');
    await page.getByLabel('Request body').fill('{"order": {"id": "dup-1"}}');
    await page.getByRole('button', { name: 'Try', exact: true }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toContain("rule #0's answer: 409");
    expect(await page.locator('.notice pre').textContent()).toContain('{"error":"order dup-1 exists"}');
    // The box keeps what was tried; without the token, the second rule.
    expect(await page.getByLabel('Request body').inputValue()).toBe('{"order": {"id": "dup-1"}}');
    await page.getByLabel('Request headers').fill('');
    await page.getByLabel('Request body').fill('{}');
    await page.getByRole('button', { name: 'Try', exact: true }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toContain("rule #1's answer: 401");
    await shot('03c-webhook-rules');
    const sent = await fetch(`${target.baseUrl}/webhook/${webhookId}`, { method: 'POST', body: '{}' });
    expect([sent.status, await sent.text()]).toEqual([401, 'token?']);
    // The card says which rule answered; two captures compared from the tools, the newest two filled in.
    const second = await fetch(`${target.baseUrl}/webhook/${webhookId}?v=2`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"order": {"id": "dup-1"}}',
    });
    expect(second.status).toBe(409);
    await page.goto(`/dashboard/webhooks/${webhookId}`);
    await expect.poll(() => page.locator('article.req .meta').first().textContent()).toMatch(/answered \d+ by rule #0/);
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL(/\/diff\?/);
    expect(await page.locator('section.diff [role=status]').textContent()).toMatch(/→ #\d+ .*: they differ/);
    expect(await page.locator('table.diff tr.added th').allTextContents()).toEqual(
      expect.arrayContaining(['v', 'authorization', '/order']),
    );
    await shot('03d-webhook-diff');

    // A JSON Schema: each capture says whether its body keeps to it; the search finds the ones that do not.
    await page.goto(`/dashboard/webhooks/${webhookId}`);
    await page.getByText('Settings', { exact: true }).click();
    await page.getByLabel('JSON Schema').fill('{"type": "object", "required": ["order"]}');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect
      .poll(() => page.locator('.notice').textContent())
      .toContain('bodies are checked against the JSON Schema');
    await page.goto(`/dashboard/webhooks/${webhookId}`);
    expect((await page.locator('.capture-list .mark').allTextContents()).filter((m) => m.startsWith('schema'))).toEqual(
      ['schema valid', 'schema invalid'],
    );
    await page.getByText('Search and filter', { exact: true }).click();
    await page.locator('form.search select[name=schema]').selectOption('invalid');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('.capture-list li').count()).toBe(1);
    expect(await page.locator('article.req .schema li').allTextContents()).toEqual(['/order is required']);
    await shot('03e-webhook-schema');

    // A box that is not JSON is named by its label.
    await page.goto(`/dashboard/webhooks/${webhookId}`);
    await page.getByText('Settings', { exact: true }).click();
    await page.getByLabel('Rules').fill('[{"match": ');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.locator('p.error').textContent()).toMatch(/^Rules: is not JSON/);
  });

  it('checks a URL, a domain, DNS records and an IP in the Lookups section', async () => {
    await page.goto('/dashboard/lookups');
    // Headers of the loopback fixture's bare page: a low grade, and each failing check says what to do.
    await page.getByLabel('URL', { exact: true }).fill(`${target.siteUrl}/bare`);
    await page.getByRole('button', { name: 'Check headers' }).click();
    await expect.poll(() => page.getByTestId('grade').first().textContent()).toMatch(/^[A-F][+-]?$/);
    const grade = (await page.getByTestId('grade').first().textContent())!;
    const api = await call(
      target,
      'GET',
      `/api/v1/network/http-headers?url=${encodeURIComponent(`${target.siteUrl}/bare`)}`,
      { key: (await newAccount(target)).key },
    );
    expect(grade).toBe(api.body.analysis.security.grade); // the same service as REST
    const hsts = page.locator('#header-checks tr.failed', { hasText: 'Strict-Transport-Security' });
    expect(await hsts.count()).toBe(1);
    expect(await hsts.locator('td').nth(3).textContent()).toBe(
      api.body.analysis.security.checks.find((c: any) => c.name === 'Strict-Transport-Security').recommendation,
    );
    expect(await page.locator('#phases td').count()).toBe(6); // DNS, connect, TLS, waiting, transfer, total
    expect(await page.locator('.phases span').count()).toBeGreaterThan(0);
    expect(await page.getByRole('cell', { name: 'PHPSESSID', exact: true }).count()).toBe(1); // the cookie table
    // what was typed stays
    expect(await page.getByLabel('URL', { exact: true }).inputValue()).toBe(`${target.siteUrl}/bare`);
    await shot('04c-lookup-headers');

    // DNS records from the loopback DNS fixture.
    await page.getByLabel('Name', { exact: true }).fill('example.test');
    await page.getByRole('button', { name: 'Look up records' }).click();
    await expect.poll(() => page.locator('#dns-records').textContent()).toContain('192.0.2.10');
    expect(await page.locator('#dns-records').textContent()).toContain('10 mx1.example.test');
    await shot('04d-lookup-dns');

    // A domain from the loopback registry, priced in the chosen currency; and a mistake named on the page.
    const taken = `taken-${randomBytes(4).toString('hex')}.com`;
    await page.getByLabel('Domain', { exact: true }).fill(taken);
    await page.getByLabel('Currency').selectOption('EUR');
    await page.getByRole('button', { name: 'Check domain' }).click();
    await expect.poll(() => page.getByTestId('availability').textContent()).toBe('Registered');
    expect(await page.locator('#lookup-answer').textContent()).toContain('Loopback Registrar, Inc.');
    const free = `free-${randomBytes(4).toString('hex')}.com`;
    await page.getByLabel('Domain', { exact: true }).fill(free);
    await page.getByRole('button', { name: 'Check domain' }).click();
    await expect.poll(() => page.getByTestId('availability').textContent()).toBe('Available');
    expect(await page.locator('#lookup-answer').textContent()).toMatch(/Registration, first year\s*[\d.]+ EUR/);
    await shot('04e-lookup-domain');
    await page.getByLabel('Domain', { exact: true }).fill('8');
    await page.getByRole('button', { name: 'Check domain' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^Domain must be a domain name/);

    // An address: a plain table.
    await page.getByLabel('Address (empty: yours)').fill('127.0.0.1');
    await page.getByRole('button', { name: 'Look up address' }).click();
    await expect.poll(() => page.locator('#lookup-answer').textContent()).toContain('IP address 127.0.0.1');
    expect(await page.locator('#lookup-answer').textContent()).toMatch(/Class\s*loopback/);
    await shot('04f-lookup-ip');
  });

  it('disconnects a connected app, after which its token is refused', async () => {
    const oauth = new FormSignInClient({ email: user.email, password: PASSWORD }, { name: 'Browser test assistant' });
    const url = new URL(`${target.baseUrl}/mcp`);
    expect(await auth(oauth as never, { serverUrl: url })).toBe('REDIRECT');
    expect(await auth(oauth as never, { serverUrl: url, authorizationCode: oauth.code })).toBe('AUTHORIZED');
    const token = oauth.tokens()!.access_token as string;
    const list = () =>
      fetch(`${target.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await list()).status).toBe(200);

    await page.goto('/dashboard/connected-apps');
    await shot('04-connected-apps');
    await page.getByRole('button', { name: 'Disconnect Browser test assistant' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Disconnected Browser test assistant');
    expect((await list()).status).toBe(401);
  });

  it(
    "signs an MCP client in: sign-in and consent pages in the browser, then back to the client's loopback " +
      'redirect',
    async () => {
      // The client: registered like the SDK does, waiting for its code on a loopback port.
      const callbacks: string[] = [];
      const server = http.createServer((req, res) => {
        if (req.url?.startsWith('/callback')) callbacks.push(req.url); // not the browser's /favicon.ico
        res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
      const context = await browser.newContext({ baseURL: target.baseUrl });
      try {
        const { body: registered } = await registerClient(target.baseUrl, {
          client_name: 'Browser MCP client',
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        });
        const verifier = randomBytes(32).toString('base64url');
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        const tab = await context.newPage();
        await tab.goto(
          authorizeUrl(target.baseUrl, { clientId: registered.client_id, redirectUri, challenge, state: 'st4te' }),
        );
        await tab.getByLabel('Email').fill(user.email);
        await tab.getByLabel('Password').fill(PASSWORD);
        await tab.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => tab.getByText('Browser MCP client').count()).toBeGreaterThan(0);
        await tab.screenshot({ path: path.join(SHOTS, '04b-consent.png'), fullPage: true });
        await tab.getByRole('button', { name: 'Allow' }).click();
        // The browser follows the redirect to the client (a page's form-action policy must not stop it).
        await tab.waitForURL(`${redirectUri}**`);
        expect(callbacks).toHaveLength(1);
        const back = new URL(callbacks[0]!, redirectUri);
        expect(back.searchParams.get('state')).toBe('st4te');
        const token = await (
          await fetch(`${target.baseUrl}/oauth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'authorization_code',
              code: back.searchParams.get('code')!,
              redirect_uri: redirectUri,
              client_id: registered.client_id,
              code_verifier: verifier,
              resource: `${target.baseUrl}/mcp`,
            }),
          })
        ).json();
        expect(token.access_token, JSON.stringify(token)).toBeTruthy();
      } finally {
        await context.close();
        server.close();
      }
    },
  );

  it('starts a load test from the form, charts it live, and shows the final results', async () => {
    const site: LoadTarget = await startLoadTarget();
    try {
      await page.goto('/dashboard/load-tests');
      // A mistake the browser cannot see is shown on the form, naming the field, with what was typed kept.
      await page.getByLabel('Target URL').fill(`${site.url}/browser`);
      // The ranges are the account's plan's (pro: at most 1,000 users, an hour).
      await page.getByLabel('Concurrent users (1 to 1000)').fill('3');
      // Durations are typed as REST takes them: seconds, or "10s", "10m", "1h30m".
      await page.getByLabel('Duration (10s to 1h)').fill('ten seconds');
      await page.getByRole('button', { name: 'Start the load test' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toMatch(/^Duration: must be seconds or a duration such as 90, "90s", "10m" or "1h30m"/);
      expect(await page.getByLabel('Duration (10s to 1h)').inputValue()).toBe('ten seconds');
      await page.getByLabel('Duration (10s to 1h)').fill('10s');
      await page.getByLabel('Ramp-up (default 10s)').fill('20');
      await page.getByRole('button', { name: 'Start the load test' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^Ramp-up: must not exceed testDuration/);
      expect(await page.getByLabel('Target URL').inputValue()).toBe(`${site.url}/browser`);
      // A key the start body does not know, typed in the JSON fields, is refused naming it (never dropped).
      await page.getByText('More options').click();
      await page
        .getByLabel('Start body fields (JSON), over the fields above')
        .fill('{"stage": [{"duration": 10, "target": 3}]}');
      await page.getByRole('button', { name: 'Start the load test' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toBe('stage: is not a field of this form (did you mean stages?)');
      await page.getByLabel('Start body fields (JSON), over the fields above').fill('');

      await page.getByLabel('Ramp-up (default 10s)').fill('0');
      await page.getByLabel('Requests per second (0: as fast as answered)').fill('30');
      await page.getByLabel('Headers, one "Name: value" per line').fill('X-Run: browser');
      await page.getByRole('button', { name: 'Start the load test' }).click();
      await page.waitForURL(/\/dashboard\/load-tests\/[A-Za-z0-9_-]+$/);
      await expect
        .poll(() => page.locator('#load-chart').getAttribute('data-points'), { timeout: 20_000 })
        .toMatch(/^([3-9]|\d\d+)$/);
      expect(await page.locator('#load-chart svg').count()).toBe(3);
      await shot('05-load-test-live');
      await expect.poll(() => page.locator('#load-results').count(), { timeout: 30_000 }).toBe(1);
      const results = await page.locator('#load-results').textContent();
      expect(results).toMatch(/Total requests\s*\d+/);
      expect(await page.locator('#load-status-codes tbody tr').allTextContents()).toEqual([
        expect.stringMatching(/^200\d+100%successful$/),
      ]); // status-code breakdown
      // The charts stay on the results page, with axes and units (drawn by the server for each width:
      // the drawing shown is the one for the page's).
      await expect.poll(() => page.locator('#load-chart svg:visible').count()).toBe(3);
      // Latency in ms, or in s when the slowest second's p99 reached a second (a busy machine).
      for (const [i, unit] of ['req/s', 'ms|s', 'errors?/s'].entries()) {
        const chart = page.locator('#load-chart svg:visible').nth(i);
        expect(await chart.locator('text.axis-x').textContent()).toBe('seconds since the start');
        const ys = await chart.locator('text.tick-y').allTextContents();
        expect(ys.length).toBeGreaterThanOrEqual(2);
        const units = `(${unit.replace('/', '\\/')})`;
        expect(ys[0]).toMatch(new RegExp(`^0 ${units}$`));
        expect(await chart.locator('text.tick-y').last().textContent()).toMatch(new RegExp(`^[\\d.]+ ${units}$`));
        expect(await chart.locator('text.tick-x').first().textContent()).toBe('0 s');
        expect(await chart.locator('polyline').count()).toBeGreaterThan(0);
      }
      expect(site.lastHeaders('/browser')?.['x-run']).toBe('browser');
      await shot('06-load-test-results');
      await page.goto('/dashboard/load-tests');
      expect(await page.getByRole('cell', { name: 'completed' }).count()).toBeGreaterThanOrEqual(1);
    } finally {
      await site.close();
    }
  }, 90_000);

  it('shows the Stop button on the page reached from the form, the thresholds live, and an all-500 test as ' +
    'failed with its 500s', async () => {
    const site: LoadTarget = await startLoadTarget();
    try {
      await page.goto('/dashboard/load-tests');
      // Only the chosen authentication's fields show.
      expect(await page.getByLabel('Bearer: token').isVisible()).toBe(false);
      await page.getByLabel('Authentication').selectOption('bearer');
      expect(await page.getByLabel('Bearer: token').isVisible()).toBe(true);
      expect(await page.getByLabel('Basic: password').isVisible()).toBe(false);
      await page.getByLabel('Authentication').selectOption('none');
      await page.getByLabel('Target URL').fill(`${site.url}/status/500`);
      await page.getByLabel('Concurrent users (1 to 1000)').fill('2');
      await page.getByLabel('Duration (10s to 1h)').fill('1m');
      await page.getByLabel('Ramp-up (default 10s)').fill('0');
      await page.getByLabel('Requests per second (0: as fast as answered)').fill('20');
      await page.getByLabel('Thresholds, one per line').fill('error_rate < 1\np95 < 5000');
      await page.getByRole('button', { name: 'Start the load test' }).click();
      await page.waitForURL(/\/dashboard\/load-tests\/[A-Za-z0-9_-]+$/);
      // The page drawn right after the start (the test still pending) has its Stop button.
      expect(await page.getByRole('button', { name: 'Stop the test' }).isVisible()).toBe(true);
      // The thresholds come live, the verdict so far with them.
      await expect.poll(() => page.locator('#load-thresholds tbody tr').count(), { timeout: 20_000 }).toBe(2);
      await expect
        .poll(() => page.locator('#load-verdict .outcome').textContent(), { timeout: 10_000 })
        .toBe('failing so far');
      await shot('05b-load-test-thresholds-live');
      await page.getByRole('button', { name: 'Stop the test' }).click();
      await expect
        .poll(() => page.locator('#load-status').textContent(), { timeout: 20_000 })
        .toMatch(/^Status stopped/);
      expect(await page.getByRole('button', { name: 'Stop the test' }).isVisible()).toBe(false);
      // The ended page: the verdict and the thresholds, the error rate, and the 500s counted as failed.
      await expect.poll(() => page.locator('#load-verdict .outcome').textContent()).toBe('failed');
      expect(await page.locator('#load-thresholds').textContent()).toMatch(/error_rate < 1\s*100\u00a0%\s*fail/);
      expect(await page.locator('#load-results').textContent()).toMatch(/Error rate[^%\d]*100%/);
      expect(await page.locator('#load-status-codes tbody tr').first().textContent()).toMatch(/^500\d+100%failed$/);
      await shot('06c-load-test-all-500');
      await page.goto('/dashboard/load-tests');
      expect(await page.locator('#load-history tbody tr').first().textContent()).toMatch(/stoppedfailed/);
      // At 375 px: no sideways scroll, the charts full width with their text at 12 px.
      await page.setViewportSize({ width: 375, height: 800 });
      await page.goBack();
      await expect.poll(() => page.locator('#load-chart svg:visible').count()).toBe(3);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      const chartWidth = await page
        .locator('#load-chart svg:visible')
        .first()
        .evaluate((svg) => svg.getBoundingClientRect().width);
      expect(chartWidth).toBeGreaterThan(300);
      const tickHeights = await page
        .locator('#load-chart svg:visible text.tick-y')
        .evaluateAll((texts) => texts.map((t) => t.getBoundingClientRect().height));
      expect(Math.min(...tickHeights)).toBeGreaterThanOrEqual(11);
      await shot('06d-load-test-all-500-375px');
      // The report to keep, beside the test before (the one form on the page offers it), at 1280 px
      // and at 375 px: both tests' headers, figures and lines, and no sideways scroll on a phone.
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.getByRole('button', { name: 'Compare' }).click();
      await page.waitForURL(/\/report\?compare=/);
      expect(await page.locator('section[data-test]').count()).toBe(2);
      expect(await page.locator('figure[data-chart="requests"] svg.wide polyline').count()).toBe(2);
      expect(await page.locator('tr:has(th:text-is("Figure"))').first().locator('th').allTextContents()).toEqual([
        'Figure',
        expect.stringMatching(/^A /),
        expect.stringMatching(/^B /),
        'B against A',
      ]);
      await shot('06e-load-report-compare');
      await page.setViewportSize({ width: 375, height: 800 });
      await shot('06f-load-report-compare-375px');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      // Both tests' figures on the screen, the change too: no column behind a sideways scroll in any table
      // (those headed by the two tests, the thresholds, the phases a block a row).
      await page.locator('.scroll:has(th .test-id)').first().waitFor();
      const hidden = await page.evaluate(() =>
        [...document.querySelectorAll('.scroll')]
          .map((box) => box.scrollWidth - box.clientWidth)
          .filter((overflow) => overflow > 1),
      );
      expect(hidden).toEqual([]);
      await page.setViewportSize({ width: 1200, height: 900 });
    } finally {
      await site.close();
    }
  }, 120_000);

  it('starts a video job, uploads the file from the browser, follows it and offers the download', async () => {
    const clip = path.join(SHOTS, '..', 'clip.mp4');
    await promisify(execFile)('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'color=c=0x808080:s=320x240:r=25:d=2',
      '-vf',
      'drawbox=x=200:y=40:w=60:h=40:color=white:t=fill',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      clip,
    ]);
    await page.goto('/dashboard/videos');
    // A mistake is shown naming the field, with what was typed kept.
    await page.getByLabel(/^Regions to remove/).fill('200, 40, 60');
    await page.getByRole('button', { name: 'Start a video job' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^Regions: line 1 \("200, 40, 60"\)/);
    await page.getByLabel(/^Regions to remove/).fill('200, 40, 60, 40');
    await page.getByRole('button', { name: 'Start a video job' }).click();
    await page.waitForURL(/\/dashboard\/videos\/[A-Za-z0-9_-]+$/);
    expect(await page.locator('#video-status').getAttribute('data-status')).toBe('awaiting_upload');
    await page.setInputFiles('#video', clip);
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect
      .poll(() => page.locator('#video-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('done');
    const href = await page.getByRole('link', { name: 'Download the result' }).getAttribute('href');
    expect(href).toMatch(/^\/downloads\//); // this origin's path: the page's CSP allows only 'self'
    await shot('06b-video-done');
    const got = await fetch(`${target.baseUrl}${href}`);
    expect(got.status).toBe(200);
    expect((await got.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    await page.goto('/dashboard/videos');
    expect(await page.locator('table.reflow a').count()).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it('renders the API reference', async () => {
    await page.goto('/docs');
    await expect.poll(() => page.locator('.opblock').count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(20);
    await shot('07-docs');
  });

  it('works from 375 to 1280 px wide without sideways scrolling, tables reflowing without broken words', async () => {
    /** Words of table cells that the layout split over two lines (a break at a space, hyphen or slash is no split). */
    const brokenWords = () =>
      page.evaluate(() => {
        const broken: string[] = [];
        for (const cell of document.querySelectorAll('td, th')) {
          const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
            // Pieces between spaces, hyphens and slashes, where a line may break; long tokens (ids, hashes) may wrap
            // anywhere.
            for (const m of node.data.matchAll(/[^\s\-/]+/g)) {
              if (m[0].length > 24) continue;
              const range = document.createRange();
              range.setStart(node, m.index!);
              range.setEnd(node, m.index! + m[0].length);
              // On two lines when a piece starts below the bottom of the first (pieces of one line may differ in top by
              // a pixel or two where a character comes from a fallback font).
              const rects = [...range.getClientRects()].filter((r) => r.width > 0);
              const first = rects[0];
              if (first && rects.some((r) => r.top >= first.bottom - 1)) broken.push(m[0]);
            }
          }
        }
        return broken;
      });
    // Every page, the detail pages too (the first webhook, load test and video job of the list).
    const details: string[] = [];
    for (const list of ['/dashboard/webhooks', '/dashboard/load-tests', '/dashboard/videos']) {
      await page.goto(list);
      const href = await page.locator(`table.reflow a[href^="${list}/"]`).first().getAttribute('href');
      if (href) details.push(href);
    }
    expect(details).toHaveLength(3);
    const pages = [
      '/',
      '/dashboard/keys',
      '/dashboard/lookups',
      '/dashboard/webhooks',
      '/dashboard/load-tests',
      '/dashboard/videos',
      '/dashboard/connected-apps',
      ...details,
    ];
    const named = (p: string) =>
      p === '/' ? '-home' : details.includes(p) ? `${p.split('/').slice(0, 3).join('-')}-item` : p.replace(/\//g, '-');
    // The pages whose tables hold rows by now: the check below must not pass on a page without its table.
    const withRows = ['/dashboard/keys', '/dashboard/webhooks', '/dashboard/load-tests', '/dashboard/videos'];
    // Every table shows whole at every width: none cuts a column at its box's edge (reflowed, or narrow enough).
    const clippedTables = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('.table-wrap')]
          .filter((box) => box.scrollWidth > box.clientWidth + 1)
          .map((box) => box.querySelector('table')?.id || box.textContent?.slice(0, 40)),
      );
    await page.setViewportSize({ width: 1280, height: 900 });
    for (const p of pages) {
      await page.goto(p);
      await shot(`09-1280px${named(p)}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), p).toBeLessThanOrEqual(1280);
      if (withRows.includes(p)) expect(await page.locator('.table-wrap').count(), p).toBeGreaterThan(0);
      expect(await clippedTables(), p).toEqual([]);
    }
    await page.setViewportSize({ width: 375, height: 800 });
    for (const p of pages) {
      await page.goto(p);
      await shot(`09-375px${named(p)}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), p).toBeLessThanOrEqual(375);
      expect(await brokenWords(), p).toEqual([]);
      expect(await clippedTables(), p).toEqual([]);
      // Every control a finger can hit: at least 24 px high (links inside sentences are exempt, as WCAG's target size
      // exempts them).
      const small = await page.evaluate(() =>
        [...document.querySelectorAll('button, input:not([type=hidden]), select, textarea, summary, nav a')]
          .filter(
            (c) =>
              (c as HTMLElement).offsetParent !== null &&
              c.getBoundingClientRect().height < 24 &&
              !(c as HTMLInputElement).type?.match(/checkbox|radio/),
          )
          .map(
            (c) =>
              `${c.tagName.toLowerCase()} ` +
              `${(c.textContent || (c as HTMLInputElement).name || '').trim().slice(0, 30)}: ` +
              `${Math.round(c.getBoundingClientRect().height)} px`,
          ),
      );
      expect(small, p).toEqual([]);
      if (details[0] === p) {
        // A webhook's newest capture is on the first screen of a phone (the curl line and the
        // account's email give way there), whole.
        const newest = await page.locator('.capture-list li').first().boundingBox();
        expect(newest!.y + newest!.height, 'bottom of the newest capture').toBeLessThanOrEqual(800);
      }
      if (p === '/dashboard/webhooks') {
        expect(await page.locator('table.reflow tbody tr').count()).toBeGreaterThan(0);
        await shot('08-phone-width-webhooks');
      }
    }
    // Between the two: a phone held sideways, a narrow window (the tables reflow at 640 px and narrower, a list of
    // seven columns or more, the load tests', at 1024 px and narrower).
    for (const width of [600, 656, 800, 920, 1040]) {
      await page.setViewportSize({ width, height: 800 });
      for (const p of pages) {
        await page.goto(p);
        if (width === 656) await shot(`09-656px${named(p)}`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${p} at ${width}`).toBeLessThanOrEqual(
          width,
        );
        expect(await clippedTables(), `${p} at ${width}`).toEqual([]);
        expect(await brokenWords(), `${p} at ${width}`).toEqual([]);
      }
    }
    await page.setViewportSize({ width: 375, height: 800 });
    // A header check's tables reflow too.
    await page.goto('/dashboard/lookups');
    await page.getByLabel('URL', { exact: true }).fill(`${target.siteUrl}/bare`);
    await page.getByRole('button', { name: 'Check headers' }).click();
    await expect.poll(() => page.locator('#header-checks').count()).toBe(1);
    // Measured once the page has loaded: until its stylesheets have loaded, a layout that a script asks for is
    // made without them, the table in four narrow columns.
    await page.waitForLoadState('load');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await brokenWords()).toEqual([]);
    expect(await clippedTables()).toEqual([]);
    await shot('08-phone-width-lookups');
  });
});
