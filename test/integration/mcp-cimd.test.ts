// Client ID Metadata Documents end to end: an MCP client that does not register, but names itself by
// the https URL of its metadata document. The service fetches that document (through the address
// guard, checking the certificate), shows its client_name on the consent page, and issues tokens to
// that client id. Its own app process, which trusts the test's certificate authority
// (NODE_EXTRA_CA_CERTS); the shared apps of the suite keep trusting none, as the header tests need.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormSignInClient } from '../../scripts/oauth-forms.ts';
import { startAppTrusting, startClientDocuments, type ClientDocuments } from '../support/client-documents.ts';
import { authorizeUrl, consentPage, expectErrorPage, PASSWORD } from '../support/mcp.ts';
import type { AppProcess } from '../support/processes.ts';

const REDIRECT = 'http://127.0.0.1:8976/oauth/callback';

describe('MCP client identified by a Client ID Metadata Document', () => {
  let app: AppProcess;
  let docs: ClientDocuments;
  const email = `cimd-${Date.now()}@example.test`;

  beforeAll(async () => {
    docs = await startClientDocuments('cimd', {
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
    });
    app = await startAppTrusting(docs, 'cimd-app', email);
  });
  afterAll(async () => {
    await app?.stop();
    await docs?.close();
  });

  const documentAt = (name: string, fields: Record<string, unknown> = {}) => docs.documentAt(name, fields);
  /** The authorization request of `clientId` for `redirectUri`, without a state. */
  const authorize = (clientId: string, redirectUri: string) => authorizeUrl(app.baseUrl, { clientId, redirectUri });

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
    expect(docs.fetched).toContain('/clients/good.json');
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
    const consent = await consentPage(authorize(clientId, REDIRECT), email, REDIRECT);
    expect(consent.html).toContain('Friendly &lt;b&gt;Bot&lt;/b&gt;');
    expect(consent.html).not.toContain('<b>Bot</b>');
  });

  it('refuses a document that names another client id, or a redirect URI it does not list', async () => {
    const liar = documentAt('liar', { client_id: `${docs.url}/clients/someone-else.json` });
    const wrongRedirect = documentAt('strict');
    for (const [clientId, redirectUri] of [
      [liar, REDIRECT],
      [wrongRedirect, 'http://127.0.0.1:9999/elsewhere'],
    ] as const) {
      // Never sent to the redirect URI (an error page here instead), and no sign-in form.
      await expectErrorPage(authorize(clientId, redirectUri), clientId);
      // Refused for what the document says, not for failing to read it.
      expect(docs.fetched).toContain(new URL(clientId).pathname);
    }
  });
});
