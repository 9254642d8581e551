// Client ID Metadata Documents end to end: an MCP client that does not register, but names itself by
// the https URL of its metadata document. The service fetches that document (through the address
// guard, checking the certificate), shows its client_name on the consent page, and issues tokens to
// that client id. Its own app process, which trusts the test's certificate authority
// (NODE_EXTRA_CA_CERTS); the shared apps of the suite keep trusting none, as the header tests need.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormBrowser, FormSignInClient } from '../../scripts/oauth-forms.ts';
import { runScript, startApp, tempDir, type AppProcess } from '../support/processes.ts';

const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'http://127.0.0.1:8976/oauth/callback';

describe('MCP client identified by a Client ID Metadata Document', () => {
  let app: AppProcess;
  let docs: https.Server;
  let docsUrl: string;
  const fetched: string[] = [];
  const documents = new Map<string, Record<string, unknown>>();
  const email = `cimd-${Date.now()}@example.test`;

  beforeAll(async () => {
    const dir = await tempDir('cimd');
    const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-days',
      '2',
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    docs = https.createServer({ key: await fs.readFile(key), cert: await fs.readFile(cert) }, (req, res) => {
      fetched.push(req.url ?? '');
      const doc = documents.get(req.url ?? '');
      if (!doc) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
    });
    await new Promise<void>((r) => docs.listen(0, '127.0.0.1', () => r()));
    docsUrl = `https://127.0.0.1:${(docs.address() as AddressInfo).port}`;
    app = await startApp({
      DATA_DIR: await tempDir('cimd-app'),
      NETWORK_ALLOW: '127.0.0.1/32',
      NODE_EXTRA_CA_CERTS: cert,
    });
    const created = await runScript(
      'scripts/admin.ts',
      ['create-user', '--email', email, '--password', PASSWORD, '--plan', 'pro'],
      app.env,
    );
    expect(created.code, created.stderr).toBe(0);
  });
  afterAll(async () => {
    await app?.stop();
    await new Promise<void>((r) => (docs ? docs.close(() => r()) : r()));
  });

  const documentAt = (name: string, fields: Record<string, unknown> = {}) => {
    const url = `${docsUrl}/clients/${name}.json`;
    documents.set(`/clients/${name}.json`, {
      client_id: url,
      client_name: `Assistant ${name}`,
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...fields,
    });
    return url;
  };

  it('signs in with the document URL as client id, names the client from the document, and calls tools', async () => {
    const meta = await (await fetch(`${app.baseUrl}/.well-known/oauth-authorization-server`)).json();
    expect(meta.client_id_metadata_document_supported).toBe(true);

    const clientId = documentAt('good');
    const oauth = new FormSignInClient(
      { email, password: PASSWORD },
      { clientMetadataUrl: clientId, redirectUrl: REDIRECT },
    );
    const url = new URL(`${app.baseUrl}/mcp`);
    const first = new Client({ name: 'cimd', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, { authProvider: oauth as any });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    // No registration: the client id is the URL, and the service fetched the document.
    expect(oauth.clientInformation()?.client_id).toBe(clientId);
    expect(fetched).toContain('/clients/good.json');
    await transport.finishAuth(oauth.code);

    const client = new Client({ name: 'cimd', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: oauth as any }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('webhook_create');
    const created = await client.callTool({ name: 'webhook_create', arguments: {} });
    expect(created.isError, JSON.stringify(created)).toBeFalsy();
    const claims = JSON.parse(Buffer.from(oauth.tokens()!.access_token.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({ client_id: clientId, aud: `${app.baseUrl}/mcp` });
    await client.close();
  });

  it('shows the name from the document on the consent page', async () => {
    const clientId = documentAt('named', { client_name: 'Friendly <b>Bot</b>' });
    const browser = new FormBrowser();
    const authorize = new URL(`${app.baseUrl}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'mcp:tools',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
      resource: `${app.baseUrl}/mcp`,
    }).toString();
    const signIn = await browser.get(authorize.href, () => false);
    if (signIn instanceof URL) throw new Error(`sent back at once: ${signIn.href}`);
    const consent = await browser.submit(signIn, /\/login$/, { email, password: PASSWORD }, () => false);
    if (consent instanceof URL) throw new Error(`sent back without consent: ${consent.href}`);
    expect(consent.html).toContain('Friendly &lt;b&gt;Bot&lt;/b&gt;');
    expect(consent.html).not.toContain('<b>Bot</b>');
  });

  it('refuses a document that names another client id, or a redirect URI it does not list', async () => {
    const liar = documentAt('liar', { client_id: `${docsUrl}/clients/someone-else.json` });
    const wrongRedirect = documentAt('strict');
    for (const [clientId, redirectUri] of [
      [liar, REDIRECT],
      [wrongRedirect, 'http://127.0.0.1:9999/elsewhere'],
    ] as const) {
      const authorize = new URL(`${app.baseUrl}/oauth/authorize`);
      authorize.search = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'mcp:tools',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
        resource: `${app.baseUrl}/mcp`,
      }).toString();
      const res = await fetch(authorize, { redirect: 'manual' });
      // Never sent to the redirect URI (an error page here instead), and no sign-in form.
      expect(res.status, clientId).toBeGreaterThanOrEqual(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).not.toContain('name="password"');
      // Refused for what the document says, not for failing to read it.
      expect(fetched).toContain(new URL(clientId).pathname);
    }
  });
});
