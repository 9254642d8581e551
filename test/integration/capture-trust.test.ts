// The capture surface is untrusted: what arrives at a capture URL is data, never a credential of this
// service. A signed-in browser's cookies (the dashboard's session and CSRF cookies, the OAuth pages'
// session) are scoped to the pages that read them and, should they still arrive (a browser holding
// cookies set before they were scoped), never stored: no listing, export, stream or rule answer shows
// them. A capture's path cannot climb out of the target it is forwarded, listened or replayed to, and
// an answer acts on the service's origin (redirects, downloads) only where captures have one of their own.
import { randomInt } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeInBrowser, FormBrowser, type Page } from '../../scripts/oauth-forms.ts';
import { call, networkApi, newAccount, targets } from '../support/client.ts';
import { authorizeUrl, newUser, PASSWORD, registerClient } from '../support/mcp.ts';
import { type AppProcess, freePort, startApp } from '../support/processes.ts';
import { type Received, startReceiver, type Receiver } from '../support/receiver.ts';

/** A raw HTTP request, its path sent exactly as given (fetch and `new URL` would resolve its dot segments). */
function raw(
  url: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path, method: options.method ?? 'GET', headers: options.headers });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The names of the cookies a Set-Cookie line sets, with its Path. */
const pathOf = (line: string) => /;\s*path=([^;]*)/i.exec(line)?.[1] ?? '(none)';
const nameOf = (line: string) => line.slice(0, line.indexOf('='));

describe.each(targets())('the capture surface holds no credential of the service ($name)', (target) => {
  const account = newAccount(target);
  const api = networkApi(target, account);
  /** A browser signed in to the dashboard and through the OAuth pages (as a user of an MCP client is). */
  let browser: FormBrowser;
  beforeAll(async () => {
    const user = await newUser(target);
    browser = new FormBrowser();
    const signIn = (await browser.get(`${target.baseUrl}/dashboard/keys`)) as Page;
    const keys = (await browser.submit(signIn, /\/dashboard\/sign-in/, {
      email: user.email,
      password: PASSWORD,
    })) as Page;
    expect(keys.html).toContain(user.email);
    const redirectUri = `http://127.0.0.1:${randomInt(20_000, 60_000)}/callback`;
    const registered = await registerClient(target.baseUrl, {
      client_name: 'capture trust',
      redirect_uris: [redirectUri],
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const authorize = authorizeUrl(target.baseUrl, { clientId: registered.body.client_id, redirectUri, state: 'x' });
    const back = await authorizeInBrowser(authorize, { email: user.email, password: PASSWORD, redirectUri, browser });
    expect(back.searchParams.get('code')).toBeTruthy();
  });

  it("scopes the dashboard's and the OAuth pages' cookies to their own paths, never /", () => {
    const byName = new Map(browser.setCookies.map((line) => [nameOf(line), pathOf(line)]));
    expect(byName.get('netops_session')).toBe('/dashboard');
    expect(byName.get('netops_csrf')).toMatch(/^\/(dashboard|oauth)$/);
    expect(byName.get('_session')).toBe('/oauth');
    for (const line of browser.setCookies) expect(pathOf(line), line).not.toBe('/');
  });

  it(
    'stores none of them from a capture: not in the listing, ' + 'the exports, the live stream or a rule echo',
    async () => {
      const created = await api('POST', 'my-webhook-create', {
        rules: [{ match: { path: '/echo' }, response: { status: 200, body: 'cookie={{request.header.cookie}}' } }],
      });
      expect(created.status, created.text).toBe(201);
      const webhookId = created.body.webhook_id as string;
      const ours = browser.cookieHeader();
      for (const name of ['netops_session', 'netops_csrf', '_session', '_session.sig'])
        expect(ours).toContain(`${name}=`);
      const secrets = ours.split('; ').map((pair) => pair.slice(pair.indexOf('=') + 1));

      const stream = await fetch(
        `${target.baseUrl}/api/v1/network/my-webhook-requests/events?webhook_id=${webhookId}`,
        {
          headers: { 'X-API-Key': (await account).key, accept: 'text/event-stream' },
        },
      );
      const echo = await raw(target.baseUrl, `/webhook/${webhookId}/echo`, {
        headers: { cookie: `theme=dark; ${ours}; cart=42`, 'x-api-key': (await account).key },
      });
      expect(echo.status).toBe(200);
      // The sender's own cookies stay data; the service's are gone before the rule reads the request.
      expect(echo.text).toBe('cookie=theme=dark; cart=42');

      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      let streamed = '';
      while (!streamed.includes('cart=42')) streamed += (await reader.read()).value ?? '';
      await reader.cancel();
      const listing = await api('GET', `my-webhook-requests?webhook_id=${webhookId}`);
      const json = await api('GET', `my-webhook-export?webhook_id=${webhookId}&format=json`);
      const har = await api('GET', `my-webhook-export?webhook_id=${webhookId}&format=har`);
      expect(listing.body.data.requests[0].headers.cookie).toBe('theme=dark; cart=42');
      expect(listing.body.data.requests[0].headers['x-api-key']).toBeUndefined();
      for (const [door, text] of Object.entries({ listing: listing.text, json: json.text, har: har.text, streamed })) {
        expect(text, door).toContain('cart=42');
        for (const secret of secrets)
          expect(text.includes(secret), `${door} holds ${secret.slice(0, 6)}...`).toBe(false);
        expect(text.includes((await account).key), `${door} holds the API key`).toBe(false);
      }
    },
  );

  describe('paths that climb', () => {
    let receiver: Receiver;
    const received: Received[] = [];
    beforeAll(async () => {
      receiver = await startReceiver('127.0.0.1', received, (_got, res) => res.end('ok'));
    });
    afterAll(() => receiver?.close());

    it.each([
      ['/../../admin/delete', '..'],
      ['/%2e%2e/%2E%2e/admin/delete', '%2e%2e'],
      ['/a/./b', '.'],
      ['/.%2e/admin', '.%2e'],
      ['/..;/admin', '..;'],
      ['/a%2f..%2fadmin', 'a%2f..%2fadmin'],
      ['/a\\..\\admin', 'a\\..\\admin'],
    ])('refuses %s with 400 naming the segment, stores and forwards nothing', async (below, segment) => {
      const created = await api('POST', 'my-webhook-create', { forward_url: `${receiver.url}/hooks` });
      expect(created.status, created.text).toBe(201);
      const webhookId = created.body.webhook_id as string;
      const arrivedBefore = received.length;
      const refused = await raw(target.baseUrl, `/webhook/${webhookId}${below}`, { method: 'POST', body: 'x' });
      expect(refused.status, refused.text).toBe(400);
      expect(JSON.parse(refused.text).message).toContain(`the segment ${JSON.stringify(segment)}`);
      // One that keeps below its target is forwarded, and is the only one that arrives.
      expect((await raw(target.baseUrl, `/webhook/${webhookId}/ok/..x`, { method: 'POST', body: 'y' })).status).toBe(
        200,
      );
      const listing = await api('GET', `my-webhook-requests?webhook_id=${webhookId}`);
      expect(listing.body.data.requests.map((r: { path: string }) => r.path)).toEqual([`/webhook/${webhookId}/ok/..x`]);
      const deadline = Date.now() + 15_000;
      while (received.length < arrivedBefore + 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(received.slice(arrivedBefore).map((r) => r.url)).toEqual(['/hooks/ok/..x']);
    });
  });
});

describe('answers that act on the origin', () => {
  const target = targets()[0]!;
  let api: AppProcess | undefined;
  let captureBase: string;
  beforeAll(async () => {
    // An API process whose capture URLs have an origin of their own (another host name of the same server).
    const port = await freePort();
    captureBase = `http://localhost:${port}`;
    api = await startApp({
      ...target.env,
      ROLE: 'api',
      PORT: String(port),
      BASE_URL: target.env.BASE_URL ?? target.baseUrl,
      CAPTURE_BASE_URL: captureBase,
    });
  });
  afterAll(() => api?.stop());

  it('prints capture URLs on CAPTURE_BASE_URL, and sends only there what acts on the whole origin', async () => {
    const { key } = await newAccount(target);
    const created = await call({ ...target, baseUrl: api!.baseUrl }, 'POST', '/api/v1/network/my-webhook-create', {
      key,
      json: {
        response: {
          status: 302,
          headers: {
            Location: 'https://example.com/next',
            'Content-Disposition': 'attachment; filename="a.txt"',
            'Strict-Transport-Security': 'max-age=0',
            'access-control-allow-origin': 'https://app.example',
          },
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const webhookId = created.body.webhook_id as string;
    expect(created.body.webhook_url).toBe(`${captureBase}/webhook/${webhookId}`);

    const own = await raw(api!.baseUrl, `/webhook/${webhookId}`, { headers: { host: new URL(captureBase).host } });
    expect(own.status).toBe(302);
    expect(own.headers.location).toBe('https://example.com/next');
    expect(own.headers['content-disposition']).toBe('attachment; filename="a.txt"');
    expect(own.headers['strict-transport-security']).toBe('max-age=0');
    expect(own.headers['access-control-allow-origin']).toBe('https://app.example'); // the owner's, once
    // The same capture URL on the service's own origin: stored, answered, but no redirect and no download.
    const shared = await raw(api!.baseUrl, `/webhook/${webhookId}`);
    expect(shared.status).toBe(302);
    expect(shared.headers.location).toBeUndefined();
    expect(shared.headers['content-disposition']).toBeUndefined();
    expect(shared.headers['strict-transport-security']).toBeUndefined(); // HSTS would be the whole host's
    expect(shared.headers['access-control-allow-origin']).toBe('https://app.example');
    const listing = await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${webhookId}`, { key });
    expect(listing.body.data.total).toBe(2);
  });
});
