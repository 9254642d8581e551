// The dynamic client registrations popular MCP clients send, replayed as their users and other
// servers' maintainers have published them, each then signing in through the real sign-in and consent
// forms with PKCE, exchanging the code and listing the tools: Cursor (application_type omitted and
// "web", one private-use, one https and one loopback redirect), VS Code, a claude.ai-style https
// callback, a loopback-only CLI and a reverse-domain native app. Then every redirect form RFC 8252 and
// RFC 6749 rule out is refused, naming it. Each registration leaves from an address of its own on
// 127.0.0.0/8 (registrations are limited per address).
import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { authorizeInBrowser, FormBrowser, type Page } from '../../scripts/oauth-forms.ts';
import { targets } from '../support/client.ts';
import { authorizeUrl, newUser, PASSWORD, registerClient } from '../support/mcp.ts';

const register = registerClient;

const CURSOR_URIS = [
  'cursor://anysphere.cursor-mcp/oauth/callback',
  'https://www.cursor.com/agents/mcp/oauth/callback',
  'http://localhost:8787/callback',
];
/**
 * A client's row: the registration it sends and the redirect it signs in with. Each registers as a
 * public client (no secret) of the code flow; `more` holds where it departs from that, as published.
 */
const client = (name: string, redirectUris: string[], use: string, more: Record<string, unknown> = {}) => ({
  name,
  metadata: {
    client_name: name,
    redirect_uris: redirectUris,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...more,
  },
  use,
});
const CLIENTS = [
  client('Cursor', CURSOR_URIS, CURSOR_URIS[0]!),
  client('Cursor (web)', CURSOR_URIS, CURSOR_URIS[0]!, { application_type: 'web' }),
  client('Visual Studio Code', ['http://127.0.0.1:33418', 'https://vscode.dev/redirect'], 'http://127.0.0.1:33418'),
  client('claude.ai', ['https://claude.ai/api/mcp/auth_callback'], 'https://claude.ai/api/mcp/auth_callback'),
  // A CLI on a loopback port it picks at each sign-in: any port is accepted (RFC 8252 section 7.3).
  client('A command-line client', ['http://127.0.0.1:8976/callback'], 'http://127.0.0.1:51234/callback', {
    grant_types: ['authorization_code'],
  }),
  client('A native app', ['com.example.app:/oauth/callback'], 'com.example.app:/oauth/callback', {
    application_type: 'native',
    grant_types: ['authorization_code'],
  }),
];

describe.each(targets())('MCP clients as they register ($name)', (target) => {
  const authorize = (clientId: string, redirectUri: string, challenge: string, state: string) =>
    authorizeUrl(target.baseUrl, { clientId, redirectUri, challenge, state });

  it.each(CLIENTS)(
    '$name registers, signs in with PKCE, gets a token and lists the tools',
    async ({ name, metadata, use }) => {
      const reg = await register(target.baseUrl, metadata);
      expect(reg.status, JSON.stringify(reg.body)).toBe(201);
      expect(reg.body.redirect_uris).toEqual(metadata.redirect_uris);
      const user = await newUser(target);
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const state = randomBytes(8).toString('hex');

      // The consent page names the client (self-registered: unverified) and where the code goes.
      const browser = new FormBrowser();
      const signIn = (await browser.get(authorize(reg.body.client_id, use, challenge, state))) as Page;
      const consent = (await browser.submit(signIn, /\/login$/, { email: user.email, password: PASSWORD }, (u) =>
        u.href.startsWith(use),
      )) as Page;
      expect(consent.html).toContain(`<strong><bdi>${name}</bdi></strong> <span class="client-mark">Unverified</span>`);
      expect(consent.html).toContain(`<th scope="row">Returns to</th><td><code><bdi>${use}</bdi></code></td>`);

      const back = await authorizeInBrowser(authorize(reg.body.client_id, use, challenge, state), {
        email: user.email,
        password: PASSWORD,
        redirectUri: use,
        browser,
      });
      expect(back.href.startsWith(use)).toBe(true);
      const { issuer } = (await (await fetch(`${target.baseUrl}/.well-known/oauth-authorization-server`)).json()) as {
        issuer: string;
      };
      expect(back.searchParams.get('state')).toBe(state);
      expect(back.searchParams.get('iss')).toBe(issuer);
      const code = back.searchParams.get('code');
      expect(code).toBeTruthy();

      const token = await fetch(`${target.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: code!,
          redirect_uri: use,
          client_id: reg.body.client_id,
          code_verifier: verifier,
          resource: `${target.baseUrl}/mcp`,
        }),
      });
      const tokens = (await token.json()) as { access_token: string };
      expect(token.status, JSON.stringify(tokens)).toBe(200);
      const client = new Client({ name: 'replay', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${target.baseUrl}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } },
        }),
      );
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('dns_lookup');
      await client.close();
    },
  );

  it('a registered private-use redirect is matched exactly: another path of the same scheme is refused', async () => {
    const reg = await register(target.baseUrl, CLIENTS[0]!.metadata);
    expect(reg.status).toBe(201);
    const challenge = createHash('sha256').update('v'.repeat(43)).digest('base64url');
    for (const other of [
      'cursor://anysphere.cursor-mcp/oauth/other',
      'cursor://evil.example/oauth/callback',
      'http://localhost:8787/other',
    ]) {
      const res = await fetch(authorize(reg.body.client_id, other, challenge, 's'), { redirect: 'manual' });
      expect(res.status, other).toBe(400);
      expect(res.headers.get('location'), other).toBeNull();
    }
  });

  it('refuses every redirect form that is not a safe place to return to, naming it', async () => {
    const refused = [
      'javascript:alert(1)',
      'data:text/html,<script>x</script>',
      'file:///etc/passwd',
      'vbscript:msgbox(1)',
      'about:blank',
      'blob:https://app.example/5f2a',
      'ws://127.0.0.1:8080/cb',
      'wss://app.example/cb',
      'http://assistant.example/cb',
      'https://app.example/cb#fragment',
      'https://user:secret@app.example/cb',
      'cursor://user@anysphere.cursor-mcp/cb',
      '1app://callback',
      'no scheme at all',
    ];
    for (const uri of refused) {
      const reg = await register(target.baseUrl, {
        client_name: 'Refused',
        redirect_uris: ['https://fine.example/cb', uri],
        token_endpoint_auth_method: 'none',
      });
      expect(reg.status, uri).toBe(400);
      expect(reg.body.error, uri).toBe('invalid_redirect_uri');
      expect(reg.body.error_description, uri).toContain(JSON.stringify(uri).slice(0, 40));
    }
  });
});
