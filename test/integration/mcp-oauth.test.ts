// The remote MCP endpoint end to end, as an MCP client sees it: the SDK's own client
// (StreamableHTTPClientTransport with an OAuthClientProvider) given nothing but `{BASE_URL}/mcp`,
// signing in and consenting through the service's real HTML forms over HTTP; then refresh-token
// rotation and reuse, the dashboard's Disconnect, and the refusals (PKCE, redirect URI, audience,
// origin, scope, API keys, other users' webhooks, SSRF).
import { createHash, randomBytes } from 'node:crypto';
import {
  auth,
  discoverAuthorizationServerMetadata,
  refreshAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizeInBrowser, FormBrowser, type Page } from '../../scripts/oauth-forms.ts';
import { authorizeUrl, connectedClient, mcpPost, newUser, PASSWORD, registerClient } from '../support/mcp.ts';
import { call, freshWindow, newAccount, targets } from '../support/client.ts';
import { SIGN_IN_LIMITS } from '../../api/pages/sign-in.ts';
import { runScript } from '../support/processes.ts';

const rpc = mcpPost;
const toolCall = (name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});
/** A JSON-RPC request `id` of `method` about a load test's task that does not exist. */
const unknownTask = (id: number, method: string) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { taskId: 'load-test-AAAAAAAAAAAA' },
});

for (const target of targets()) {
  describe(`MCP over OAuth (${target.name})`, () => {
    let user: { email: string; userId: number };
    beforeAll(async () => {
      user = await newUser(target);
    });

    it(
      'connects with only the URL, lists the tools and calls the lookup and webhook ones, ' +
        'rotates refresh tokens and revokes a reused one',
      async () => {
        // What an unauthenticated client sees first.
        const unauthenticated = await rpc(target, null, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
        expect(unauthenticated.status).toBe(401);
        const challenge = unauthenticated.headers.get('www-authenticate')!;
        expect(challenge).toMatch(/^Bearer /);
        expect(challenge).toContain(`resource_metadata="${target.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
        expect(challenge).toContain('scope="mcp:tools"');
        const resourceMeta = await (await fetch(`${target.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json();
        expect(resourceMeta).toMatchObject({
          resource: `${target.baseUrl}/mcp`,
          authorization_servers: [target.baseUrl],
        });
        const asMeta = await (await fetch(`${target.baseUrl}/.well-known/oauth-authorization-server`)).json();
        expect(asMeta).toMatchObject({
          issuer: target.baseUrl,
          authorization_endpoint: `${target.baseUrl}/oauth/authorize`,
          token_endpoint: `${target.baseUrl}/oauth/token`,
          registration_endpoint: `${target.baseUrl}/oauth/register`,
          code_challenge_methods_supported: ['S256'],
        });

        const { client, oauth, url } = await connectedClient(target, user.email, { name: 'E2E assistant' });
        expect(oauth.clientInformation()?.client_id).toBeTruthy();
        const tokens = oauth.tokens()!;
        expect(tokens.refresh_token).toBeTruthy();
        expect(tokens.expires_in).toBe(600);
        const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString());
        expect(claims).toMatchObject({ aud: `${target.baseUrl}/mcp`, iss: target.baseUrl, sub: String(user.userId) });

        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual([
          'audit_page_design',
          'discover_site_pages',
          'dns_lookup',
          'domain_check_bulk',
          'http_headers',
          'ip_info',
          'load_test_list',
          'load_test_results',
          'load_test_start',
          'load_test_status',
          'load_test_stop',
          'load_test_verify_target',
          'remove_video_watermark',
          'watermark_status',
          'webhook_create',
          'webhook_delete',
          'webhook_diff',
          'webhook_list',
          'webhook_replay',
          'webhook_requests',
          'webhook_trigger',
          'webhook_update',
          'webhook_wait_for_request',
        ]);
        for (const t of tools)
          expect(Object.keys(t.annotations ?? {}).sort(), t.name).toEqual([
            'destructiveHint',
            'idempotentHint',
            'openWorldHint',
            'readOnlyHint',
            'title',
          ]);

        // Every tool, through HTTP, as this user.
        const dns = await client.callTool({ name: 'dns_lookup', arguments: { domain: 'example.test', type: 'A' } });
        expect(dns.isError, JSON.stringify(dns)).toBeFalsy();
        const ip = await client.callTool({ name: 'ip_info', arguments: { ip: '8.8.8.8' } });
        expect(ip.isError, JSON.stringify(ip)).toBeFalsy();
        const headers = await client.callTool({ name: 'http_headers', arguments: { url: target.siteUrl } });
        expect(headers.isError, JSON.stringify(headers)).toBeFalsy();
        const created = await client.callTool({ name: 'webhook_create', arguments: {} });
        const webhookId = (created.structuredContent as { webhook_id: string }).webhook_id;
        expect(webhookId).toBeTruthy();
        await fetch(`${target.baseUrl}/webhook/${webhookId}?via=mcp`, { method: 'POST', body: 'hello' });
        const listed = await client.callTool({ name: 'webhook_list', arguments: {} });
        expect(JSON.stringify(listed.structuredContent)).toContain(webhookId);
        let requests: any;
        for (let i = 0; i < 20; i++) {
          requests = await client.callTool({ name: 'webhook_requests', arguments: { webhook_id: webhookId } });
          if ((requests.structuredContent as any)?.data?.total > 0) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(JSON.stringify(requests.structuredContent)).toContain('hello');
        const deleted = await client.callTool({ name: 'webhook_delete', arguments: { webhook_id: webhookId } });
        expect(deleted.isError, JSON.stringify(deleted)).toBeFalsy();

        // An MCP token is not an API key.
        expect((await call(target, 'GET', '/api/v1/network/my-webhooks', { bearer: tokens.access_token })).status).toBe(
          401,
        );

        // Refresh: a new pair; the old refresh token is then refused, and its reuse revokes the grant.
        const oldRefresh = tokens.refresh_token!;
        expect(await auth(oauth as any, { serverUrl: url })).toBe('AUTHORIZED');
        const rotated = oauth.tokens()!;
        expect(rotated.refresh_token).not.toBe(oldRefresh);
        expect(rotated.access_token).not.toBe(tokens.access_token);
        expect((await rpc(target, rotated.access_token, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(
          200,
        );
        const metadata = await discoverAuthorizationServerMetadata(target.baseUrl);
        await expect(
          refreshAuthorization(target.baseUrl, {
            metadata,
            clientInformation: oauth.clientInformation()!,
            refreshToken: oldRefresh,
            resource: new URL(`${target.baseUrl}/mcp`),
          }),
        ).rejects.toThrow(/grant/i);
        const afterReuse = await rpc(target, rotated.access_token, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
        expect(afterReuse.status).toBe(401);
        expect(afterReuse.headers.get('www-authenticate')).toContain('error="invalid_token"');
        await expect(
          refreshAuthorization(target.baseUrl, {
            metadata,
            clientInformation: oauth.clientInformation()!,
            refreshToken: rotated.refresh_token!,
            resource: new URL(`${target.baseUrl}/mcp`),
          }),
        ).rejects.toThrow();
        await client.close();
      },
    );

    it('shows the app under connected apps and stops its tokens at once when the user disconnects it', async () => {
      const { client, oauth } = await connectedClient(target, user.email, { name: 'Disconnect me' });
      await client.callTool({ name: 'webhook_list', arguments: {} });

      const browser = new FormBrowser();
      let page = (await browser.get(`${target.baseUrl}/dashboard/connected-apps`)) as Page;
      expect(page.url).toContain('/dashboard/sign-in');
      page = (await browser.submit(page, /\/dashboard\/sign-in/, { email: user.email, password: PASSWORD })) as Page;
      expect(page.url).toBe(`${target.baseUrl}/dashboard/connected-apps`);
      expect(page.html).toContain('Disconnect me');
      expect(page.html).toContain('mcp:tools');
      expect(page.html).toContain('127.0.0.1:8976');
      expect(page.html).toMatch(/<time datetime="[^"]+">/); // first and last use are shown

      const token = oauth.tokens()!.access_token;
      expect((await rpc(target, token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200);
      const clientId = oauth.clientInformation()!.client_id;
      const forms = [
        ...page.html.matchAll(/<form method="post" action="\/dashboard\/connected-apps\/revoke">[\s\S]*?<\/form>/g),
      ].map((m) => m[0]);
      const ours = forms.find((f) => f.includes(clientId))!;
      expect(ours).toBeTruthy();
      page = (await browser.submit({ ...page, html: ours }, /revoke/, { client_id: clientId })) as Page;
      expect(page.html).toContain('Disconnected <bdi>Disconnect me</bdi>');
      expect(page.html).not.toContain(clientId);

      expect((await rpc(target, token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(401);
      await expect(
        refreshAuthorization(target.baseUrl, {
          metadata: await discoverAuthorizationServerMetadata(target.baseUrl),
          clientInformation: oauth.clientInformation()!,
          refreshToken: oauth.tokens()!.refresh_token!,
        }),
      ).rejects.toThrow();
      await client.close();
    });

    it('refuses a wrong PKCE verifier and a redirect URI that was not registered', async () => {
      const redirectUri = 'http://127.0.0.1:8977/cb';
      const { body: reg } = await registerClient(target.baseUrl, {
        client_name: 'PKCE test',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      });
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const authorize = (redirect: string, extra: Record<string, string> = {}) =>
        authorizeUrl(target.baseUrl, { clientId: reg.client_id, redirectUri: redirect, challenge, state: 's1' }, extra);

      // No PKCE at all: refused even for this public client's first step.
      const noPkce = await fetch(
        `${target.baseUrl}/oauth/authorize?${new URLSearchParams({
          client_id: reg.client_id,
          response_type: 'code',
          redirect_uri: redirectUri,
          scope: 'mcp:tools',
        })}`,
        { redirect: 'manual' },
      );
      expect(new URL(noPkce.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
      // RFC 9207: every authorization response, errors included, names the issuer the metadata announces.
      const { issuer, authorization_response_iss_parameter_supported: issSupported } = (await (
        await fetch(`${target.baseUrl}/.well-known/oauth-authorization-server`)
      ).json()) as any;
      expect(issSupported).toBe(true);
      expect(new URL(noPkce.headers.get('location')!).searchParams.get('iss')).toBe(issuer);

      // A redirect URI other than the registered one: an error page, never a redirect to it.
      const mismatch = await fetch(authorize('http://127.0.0.1:8977/other'), { redirect: 'manual' });
      expect(mismatch.status).toBe(400);
      expect(mismatch.headers.get('location')).toBeNull();
      expect(await mismatch.text()).toContain('redirect_uri');

      // The sign-in page and then the consent page name the client, where it sends the user back, and the scopes.
      const browser = new FormBrowser();
      const signInPage = (await browser.get(authorize(redirectUri))) as Page;
      expect(signInPage.html).toContain('PKCE test');
      expect(signInPage.html).toContain('127.0.0.1:8977');
      expect(signInPage.html).toContain('name="password"');
      // A post without the form's CSRF token is refused and signs nobody in.
      const forged = await fetch(new URL(/action="([^"]+\/login)"/.exec(signInPage.html)![1]!, target.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: user.email, password: PASSWORD }),
      });
      expect(forged.status).toBe(403);
      const consentPage = (await browser.submit(signInPage, /\/login$/, {
        email: user.email,
        password: PASSWORD,
      })) as Page;
      expect(consentPage.html).toContain('Allow access?');
      expect(consentPage.html).toContain('PKCE test');
      expect(consentPage.html).toContain('127.0.0.1:8977');
      expect(consentPage.html).toContain('<code>mcp:tools</code>');
      const back = await authorizeInBrowser(authorize(redirectUri), {
        email: user.email,
        password: PASSWORD,
        redirectUri,
        browser,
      });
      const code = back.searchParams.get('code')!;
      expect(back.searchParams.get('state')).toBe('s1');
      expect(back.searchParams.get('iss')).toBe(issuer);
      // A user who declines: the error redirect names the issuer too.
      const declined = await authorizeInBrowser(authorize(redirectUri, { state: 's2' }), {
        email: user.email,
        password: PASSWORD,
        redirectUri,
        browser: new FormBrowser(),
        approve: false,
      });
      expect(Object.fromEntries(declined.searchParams)).toMatchObject({
        error: 'access_denied',
        state: 's2',
        iss: issuer,
      });
      const exchange = (codeVerifier: string) =>
        fetch(`${target.baseUrl}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            redirect_uri: redirectUri,
            client_id: reg.client_id,
            code_verifier: codeVerifier,
            resource: `${target.baseUrl}/mcp`,
          }),
        });
      const wrong = await exchange(randomBytes(32).toString('base64url'));
      expect(wrong.status).toBe(400);
      expect(((await wrong.json()) as any).error).toBe('invalid_grant');
      // The right verifier gets the token once; the code cannot be used twice.
      const right = await exchange(verifier);
      expect(right.status, await right.clone().text()).toBe(200);
      expect(((await right.json()) as any).token_type).toBe('Bearer');
      expect((await exchange(verifier)).status).toBe(400);

      // Registration refuses redirect URIs that are neither https nor loopback.
      const insecure = await registerClient(target.baseUrl, { redirect_uris: ['http://assistant.example/cb'] });
      expect(insecure.status).toBe(400);
      expect(insecure.body.error_description).toMatch(/https|loopback/);
    });

    it('refuses API keys, forged or foreign tokens, foreign origins and calls beyond the granted scope', async () => {
      const { key } = await newAccount(target);
      const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      expect((await rpc(target, key, list)).status).toBe(401);
      expect((await rpc(target, null, list, { 'x-api-key': key })).status).toBe(401);

      const { client, oauth } = await connectedClient(target, user.email, { scope: 'mcp:read', name: 'Read only' });
      const token = oauth.tokens()!.access_token as string;
      expect(oauth.tokens()!.scope).toBe('mcp:read');

      // A token whose audience was changed no longer carries a valid signature.
      const [h, p, s] = token.split('.');
      const otherAudience = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), aud: 'https://other.example/mcp' }),
      ).toString('base64url');
      const forged = await rpc(target, `${h}.${otherAudience}.${s}`, list);
      expect(forged.status).toBe(401);
      expect(forged.headers.get('www-authenticate')).toContain('invalid_token');

      // DNS rebinding protection: a foreign Origin is 403 even with a valid token.
      expect((await rpc(target, token, list, { origin: 'http://evil.example' })).status).toBe(403);
      expect((await rpc(target, token, list, { origin: new URL(target.baseUrl).origin })).status).toBe(200);

      // Read-only scope: lookups and reads work, a write is 403 insufficient_scope naming the scope needed.
      expect((await client.callTool({ name: 'webhook_list', arguments: {} })).isError).toBeFalsy();
      const write = await rpc(target, token, toolCall('webhook_create'));
      expect(write.status).toBe(403);
      expect(write.headers.get('www-authenticate')).toMatch(
        /error="insufficient_scope".*scope="mcp:tools"|scope="mcp:tools".*error="insufficient_scope"/,
      );
      // Starting a load test and cancelling a task change things too; reading a task does not.
      expect((await rpc(target, token, toolCall('load_test_start'))).status).toBe(403);
      const cancel = await rpc(target, token, unknownTask(9, 'tasks/cancel'));
      expect(cancel.status).toBe(403);
      expect(cancel.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
      // The name a task-augmented call is renamed to inside is not a client's to send: it would start
      // a load test past the scope check.
      const inside = await rpc(target, token, {
        jsonrpc: '2.0',
        id: 11,
        method: 'netops/tools/call-as-task',
        params: { name: 'load_test_start', arguments: { target_url: 'https://staging.example.com/' } },
      });
      expect(inside.status).toBe(400);
      expect(((await inside.json()) as any).error).toMatchObject({ code: -32601 });
      const read = await rpc(target, token, unknownTask(10, 'tasks/get'));
      expect(read.status).toBe(200);
      expect(JSON.stringify(await read.json())).toMatch(/Task not found/);

      // Malformed JSON-RPC is a JSON-RPC error, not a 500.
      const malformed = await fetch(`${target.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: '{not json',
      });
      expect(malformed.status).toBe(400);
      expect(((await malformed.json()) as any).error.code).toBe(-32700);
      await client.close();
    });

    it("answers another user's webhook and an SSRF target with error results that leak nothing", async () => {
      const other = await newUser(target);
      const { client: theirs } = await connectedClient(target, other.email);
      const theirHook = (
        (await theirs.callTool({ name: 'webhook_create', arguments: {} })).structuredContent as { webhook_id: string }
      ).webhook_id;
      const { client: mine } = await connectedClient(target, user.email);

      const foreign = await mine.callTool({ name: 'webhook_requests', arguments: { webhook_id: theirHook } });
      expect(foreign.isError).toBe(true);
      expect(foreign.structuredContent).toBeUndefined();
      expect(JSON.stringify(foreign.content)).not.toContain(other.email);
      const missing = await mine.callTool({
        name: 'webhook_requests',
        arguments: { webhook_id: 'AAAAAAAAAAAAAAAAAAAAAA' },
      });
      // The same answer as for a webhook that does not exist (apart from the id itself).
      expect(JSON.stringify(foreign.content).replace(theirHook, 'ID')).toBe(
        JSON.stringify(missing.content).replace('AAAAAAAAAAAAAAAAAAAAAA', 'ID'),
      );

      const ssrf = await mine.callTool({ name: 'http_headers', arguments: { url: 'http://127.0.0.2:9/' } });
      expect(ssrf.isError).toBe(true);
      expect(JSON.stringify(ssrf.content)).toMatch(/not allowed|forbidden|loopback|private/i);
      await Promise.all([mine.close(), theirs.close()]);
    });

    it(
      'limits sign-in attempts per email and address: ' +
        'the 10th wrong password is still checked, the 11th is refused',
      async () => {
        const victim = await newUser(target);
        const browser = new FormBrowser();
        let page = (await browser.get(`${target.baseUrl}/dashboard/sign-in`)) as Page;
        await freshWindow(30, [SIGN_IN_LIMITS.windowSeconds]);
        for (let attempt = 1; attempt <= 10; attempt++) {
          page = (await browser.submit(page, /\/dashboard\/sign-in/, {
            email: victim.email,
            password: `wrong password ${attempt}`,
          })) as Page;
          expect(page.status, `attempt ${attempt}`).toBe(401);
          expect(page.html).toContain('Wrong email or password');
        }
        page = (await browser.submit(page, /\/dashboard\/sign-in/, {
          email: victim.email,
          password: PASSWORD,
        })) as Page;
        expect(page.status).toBe(429);
        expect(page.html).toMatch(/Too many sign-in attempts: try again in \d+ minutes?/);
        // Another account from the same address is not locked out by it (other addresses: oauth-limits.test.ts).
        page = (await browser.submit(page, /\/dashboard\/sign-in/, { email: user.email, password: PASSWORD })) as Page;
        expect(page.url).toBe(`${target.baseUrl}/dashboard/keys`);
      },
    );

    it(
      "the README's mcp-token script gets a working token through the same flow, " + 'and says why when it cannot',
      async () => {
        const url = `${target.baseUrl}/mcp`;
        const out = await runScript('scripts/mcp-token.ts', ['--url', url, '--email', user.email], {
          ...process.env,
          MCP_PASSWORD: PASSWORD,
        } as Record<string, string>);
        expect(out.code, out.stderr).toBe(0);
        const printed = JSON.parse(out.stdout);
        expect(printed.inspector).toContain(
          `--cli ${url} --transport http --method tools/list --header "Authorization: Bearer ${printed.access_token}"`,
        );
        const listed = await rpc(target, printed.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
        expect(listed.status).toBe(200);
        expect(JSON.stringify(await listed.json())).toContain('webhook_requests');

        const wrong = await runScript('scripts/mcp-token.ts', ['--url', url, '--email', user.email], {
          ...process.env,
          MCP_PASSWORD: 'not the password',
        } as Record<string, string>);
        expect(wrong.code).toBe(1);
        expect(wrong.stderr).toMatch(/sign-in failed/);
      },
    );
  });
}
