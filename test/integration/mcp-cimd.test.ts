// Client ID Metadata Documents end to end: an MCP client that does not register, but names itself by
// the https URL of its metadata document, at 2025-11-25 (the 1.x SDK client) and at 2026-07-28 (the
// 2.x one). The service fetches that document (through the address guard, checking the certificate),
// shows its client_name on the consent page, and issues tokens to that client id. Its own app
// process, which trusts the test's certificate authority (NODE_EXTRA_CA_CERTS); the shared apps of
// the suite keep trusting none, as the header tests need.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppTrusting, startClientDocuments, type ClientDocuments } from '../support/client-documents.ts';
import { authorizeUrl, connectedClient, connectedModernClient, consentPage, expectErrorPage } from '../support/mcp.ts';
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

  // The 1.x SDK client at 2025-11-25 and the 2.x one at 2026-07-28: the same sign-in on either revision.
  for (const [revision, connect] of [
    ['2025-11-25', connectedClient],
    ['2026-07-28', connectedModernClient],
  ] as const) {
    it(`${revision}: signs in with the document URL as client id, and lists and calls tools`, async () => {
      const meta = await (await fetch(`${app.baseUrl}/.well-known/oauth-authorization-server`)).json();
      expect(meta.client_id_metadata_document_supported).toBe(true);

      const clientId = documentAt(`good-${revision}`);
      const { client, oauth } = await connect(app, email, { clientMetadataUrl: clientId, redirectUrl: REDIRECT });
      try {
        // Both SDKs' HTTP transports send the revision they agreed on as MCP-Protocol-Version.
        expect((client.transport as { protocolVersion?: string }).protocolVersion).toBe(revision);
        // No registration: the client id is the URL, and the service fetched the document.
        expect(oauth.clientInformation()?.client_id).toBe(clientId);
        expect(docs.fetched).toContain(`/clients/good-${revision}.json`);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('webhook_create');
        const created = await client.callTool({ name: 'webhook_create', arguments: {} });
        expect(created.isError, JSON.stringify(created)).toBeFalsy();
        const claims = JSON.parse(Buffer.from(oauth.tokens()!.access_token.split('.')[1]!, 'base64url').toString());
        expect(claims).toMatchObject({ client_id: clientId, aud: `${app.baseUrl}/mcp` });
      } finally {
        await client.close();
      }
    });
  }

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
