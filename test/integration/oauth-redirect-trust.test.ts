// The trust boundary of client registration (issue 60), against the real service: redirect URIs that
// open an operating-system or browser handler are refused at registration, naming them, while Cursor's
// callback, a reverse-domain scheme and loopback http still register; an invalid authorization request is
// never sent to such a URI; the consent page marks a self-registered client unverified (a client can call
// itself "Cursor") and shows its redirect, client id and registration time. Then, on an app of its own
// (which trusts the test's certificate authority, as in mcp-cimd.test.ts): a Client ID Metadata Document is
// held to the same rules and its client named by the document's host, and OAUTH_REDIRECT_SCHEMES adds a
// scheme whose clients, once it is taken away, keep their other redirects but are never sent to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormBrowser } from '../../scripts/oauth-forms.ts';
import { targets } from '../support/client.ts';
import { startAppTrusting, startClientDocuments, type ClientDocuments } from '../support/client-documents.ts';
import {
  authorizeUrl as authorizationRequest,
  consentPage,
  expectErrorPage,
  newUser,
  registerClient,
} from '../support/mcp.ts';
import { startApp, type AppProcess } from '../support/processes.ts';
import { DANGEROUS } from '../support/redirect-uris.ts';

const CURSOR = 'cursor://anysphere.cursor-mcp/oauth/callback';

const register = registerClient;

const authorizeUrl = (baseUrl: string, clientId: string, redirectUri: string, extra: Record<string, string> = {}) =>
  authorizationRequest(baseUrl, { clientId, redirectUri, state: 's1' }, extra);

describe.each(targets())('client registration as a trust boundary ($name)', (target) => {
  it.each(DANGEROUS)('refuses to register %s, naming it', async (uri) => {
    const reg = await register(target.baseUrl, {
      client_name: 'Handler',
      redirect_uris: ['https://fine.example/cb', uri],
    });
    expect(reg.status, JSON.stringify(reg.body)).toBe(400);
    expect(reg.body.error).toBe('invalid_redirect_uri');
    expect(reg.body.error_description).toContain(JSON.stringify(uri));
    expect(reg.body.error_description).toContain(`must not use the ${uri.slice(0, uri.indexOf(':'))} scheme`);
  });

  it("registers Cursor's callback, a reverse-domain scheme and a loopback port", async () => {
    for (const uri of [CURSOR, 'com.example.app:/cb', 'http://127.0.0.1:53123/callback']) {
      const reg = await register(target.baseUrl, { client_name: 'Accepted', redirect_uris: [uri] });
      expect(reg.status, `${uri}: ${JSON.stringify(reg.body)}`).toBe(201);
      expect(reg.body.redirect_uris).toEqual([uri]);
    }
  });

  it("refuses Cursor's scheme for anything but its sign-in callback: its MCP install link most of all", async () => {
    const uri = 'cursor://anysphere.cursor-deeplink/mcp/install?name=x&config=e30=';
    const reg = await register(target.baseUrl, { client_name: 'Installer', redirect_uris: [uri] });
    expect(reg.status).toBe(400);
    expect(reg.body.error).toBe('invalid_redirect_uri');
    expect(reg.body.error_description).toContain(JSON.stringify(uri));
  });

  it('marks a self-registered "Cursor" unverified, showing its redirect, client id and registration time', async () => {
    const reg = await register(target.baseUrl, {
      client_name: 'Cursor',
      redirect_uris: [CURSOR],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    const issuedAt = new Date(reg.body.client_id_issued_at * 1000).toISOString();
    const user = await newUser(target);
    const { html } = await consentPage(authorizeUrl(target.baseUrl, reg.body.client_id, CURSOR), user.email, CURSOR);
    expect(html).toContain(
      '<strong><bdi>Cursor</bdi></strong> <span class="client-mark">Unverified</span> wants to connect',
    );
    expect(html).toContain('the name \u201c<bdi>Cursor</bdi>\u201d is its own choice, and nobody checked it');
    expect(html).toContain(`<th scope="row">Returns to</th><td><code><bdi>${CURSOR}</bdi></code></td>`);
    expect(html).toContain(`<th scope="row">Client ID</th><td><code>${reg.body.client_id}</code></td>`);
    expect(html).toContain(`<th scope="row">Registered</th><td><time datetime="${issuedAt}">`);
  });

  it('answers an invalid authorization request that names a dangerous redirect on its own error page', async () => {
    const reg = await register(target.baseUrl, { client_name: 'Cursor', redirect_uris: [CURSOR] });
    expect(reg.status).toBe(201);
    for (const uri of DANGEROUS) {
      await expectErrorPage(authorizeUrl(target.baseUrl, reg.body.client_id, uri), uri);
      await expectErrorPage(authorizeUrl(target.baseUrl, reg.body.client_id, uri, { response_type: 'token' }), uri);
    }
  });
});

describe('metadata documents and OAUTH_REDIRECT_SCHEMES, on an app of their own', () => {
  let app: AppProcess;
  let docs: ClientDocuments;
  const email = `redirects-${Date.now()}@example.test`;
  const REDIRECT = 'http://127.0.0.1:8976/oauth/callback';

  beforeAll(async () => {
    docs = await startClientDocuments('redirects', { redirect_uris: [REDIRECT], grant_types: ['authorization_code'] });
    app = await startAppTrusting(docs, 'redirects-app', email, { OAUTH_REDIRECT_SCHEMES: 'oldapp' });
  });
  afterAll(async () => {
    await app?.stop();
    await docs?.close();
  });

  const documentAt = (name: string, fields: Record<string, unknown>) => docs.documentAt(name, fields);

  it('holds a metadata document to the same rules: its dangerous redirect is never sent to', async () => {
    for (const [i, uri] of DANGEROUS.slice(0, 3).entries()) {
      const clientId = documentAt(`handler-${i}`, { redirect_uris: [uri] });
      await expectErrorPage(authorizeUrl(app.baseUrl, clientId, uri), uri);
      await expectErrorPage(authorizeUrl(app.baseUrl, clientId, uri, { response_type: 'token' }), uri);
      expect(docs.fetched).toContain(new URL(clientId).pathname); // refused for what the document says
    }
  });

  it("names a client known by its metadata document by the document's host, without the unverified mark", async () => {
    const clientId = documentAt('known', { client_name: 'Claude' });
    const { html } = await consentPage(authorizeUrl(app.baseUrl, clientId, REDIRECT), email, REDIRECT);
    const host = new URL(docs.url).host;
    expect(html).toContain(`<strong><bdi>${host}</bdi></strong> wants to connect`);
    expect(html).not.toContain('class="client-mark"');
    expect(html).not.toContain('Unverified');
    expect(html).toContain(`<code>${clientId}</code> (its metadata document, served by <bdi>${host}</bdi>)`);
    expect(html).toContain('<th scope="row">Calls itself</th><td><bdi>Claude</bdi></td>');
    expect(html).toContain(`<th scope="row">Returns to</th><td><code><bdi>${REDIRECT}</bdi></code></td>`);
  });

  it('registers a scheme the operator lists; once no longer listed, its clients are never sent to it', async () => {
    const reg = await register(app.baseUrl, { client_name: 'Old app', redirect_uris: ['oldapp://callback', REDIRECT] });
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    expect(
      (await register(app.baseUrl, { client_name: 'New app', redirect_uris: ['newapp://callback'] })).body.error,
    ).toBe('invalid_redirect_uri');
    // The same data, the variable gone (empty is unset).
    const { TEMPORAL_DEV_PORT: _t, TEMPORAL_UI_PORT: _u, PORT: _p, ...env } = app.env;
    await app.stop();
    app = await startApp({ ...env, OAUTH_REDIRECT_SCHEMES: '' });
    await expectErrorPage(authorizeUrl(app.baseUrl, reg.body.client_id, 'oldapp://callback'), 'oldapp');
    await expectErrorPage(
      authorizeUrl(app.baseUrl, reg.body.client_id, 'oldapp://callback', { response_type: 'token' }),
      'oldapp, invalid request',
    );
    // Its other redirect still signs in.
    const signIn = await new FormBrowser().get(authorizeUrl(app.baseUrl, reg.body.client_id, REDIRECT), () => true);
    expect(signIn instanceof URL && signIn.pathname.startsWith('/oauth/interaction/'), String(signIn)).toBe(true);
  });
});
