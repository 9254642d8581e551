// The server as the next generation of MCP clients meets it: the 2.x SDK client (@modelcontextprotocol/client)
// signing in through the real OAuth forms and checking every authorization response's `iss` (RFC 9207:
// a forged or missing issuer stops the flow before any token request), and the Tasks extension's
// generation-agnostic requester (@modelcontextprotocol/ext-tasks) running a job as a 2025-11-25 task
// on this server to its end, and cancelling one.
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import { auth, Client, IssuerMismatchError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { describe, expect, it } from 'vitest';
import { FormSignInClient } from '../../scripts/oauth-forms.ts';
import { targets } from '../support/client.ts';
import { newUser, PASSWORD } from '../support/mcp.ts';

for (const target of targets()) {
  describe(`MCP with the 2.x client and the Tasks extension (${target.name})`, () => {
    const serverUrl = new URL(`${target.baseUrl}/mcp`);
    /** Registered once (registrations are limited per address), then used by each new user. */
    let clientInformation: OAuthClientInformationMixed | undefined;
    /** A provider that counts the token requests it would make (through the SDK's fetch). */
    const signIn = async () => {
      const user = await newUser(target);
      const oauth = new FormSignInClient({ email: user.email, password: PASSWORD });
      if (clientInformation) oauth.saveClientInformation(clientInformation);
      const tokenRequests: string[] = [];
      const fetchFn = (url: string | URL, init?: RequestInit) => {
        if (String(url).endsWith('/oauth/token')) tokenRequests.push(String(init?.body ?? ''));
        return fetch(url, init);
      };
      expect(await auth(oauth as any, { serverUrl, fetchFn })).toBe('REDIRECT');
      clientInformation ??= oauth.clientInformation();
      return { oauth, tokenRequests, fetchFn };
    };

    it(
      "checks the authorization response's iss: " + 'a forged or missing issuer stops the flow, the right one signs in',
      async () => {
        const { oauth, tokenRequests, fetchFn } = await signIn();
        const back = oauth.lastRedirect!;
        const issuer = back.searchParams.get('iss');
        expect(issuer).toBe(target.baseUrl);
        await expect(
          auth(oauth as any, { serverUrl, fetchFn, authorizationCode: oauth.code, iss: 'https://attacker.example' }),
        ).rejects.toBeInstanceOf(IssuerMismatchError);
        // The metadata announces the parameter, so an answer without it is refused too.
        await expect(auth(oauth as any, { serverUrl, fetchFn, authorizationCode: oauth.code })).rejects.toBeInstanceOf(
          IssuerMismatchError,
        );
        expect(tokenRequests).toEqual([]);
        expect(await auth(oauth as any, { serverUrl, fetchFn, authorizationCode: oauth.code, iss: issuer! })).toBe(
          'AUTHORIZED',
        );
        expect(tokenRequests).toHaveLength(1);
        expect(tokenRequests[0]).toContain('grant_type=authorization_code');
      },
    );

    it("runs a job through the Tasks extension's requester to its end, and cancels another", {
      timeout: 90_000,
    }, async () => {
      const { oauth, fetchFn } = await signIn();
      expect(
        await auth(oauth as any, {
          serverUrl,
          fetchFn,
          authorizationCode: oauth.code,
          iss: oauth.lastRedirect!.searchParams.get('iss')!,
        }),
      ).toBe('AUTHORIZED');
      const client = new Client({ name: 'ext-tasks e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: oauth as any }));
      const session = createTaskSessionFromClient(client as any, { endpointId: `netops-${target.name}` });
      try {
        const stamp = `${target.name}-${Date.now().toString(36)}`;
        const events: string[] = [];
        const execution = await session.callTool(
          'domain_check_bulk',
          { domains: [`free-${stamp}.com`, `taken-${stamp}.com`, 'example.com'] },
          { task: { preference: 'require' } },
        );
        const { outcome, lastTask } = await execution.settle({ onEvent: (e) => void events.push(e.type) });
        expect(outcome.status, JSON.stringify(outcome)).toBe('completed');
        expect(lastTask?.taskId).toMatch(/^domain-check-/);
        const result = resultFromTaskOutcome(outcome) as { structuredContent?: any };
        expect(result.structuredContent).toMatchObject({ total: 3, mode: 'fast' });
        expect(result.structuredContent.results[`free-${stamp}.com`]).toMatchObject({ success: true, available: true });
        expect(result.structuredContent.results['example.com']).toMatchObject({ is_reserved: true });

        // Names nobody answers in full mode keep the job running: cancelled from the requester, it ends cancelled.
        const slow = await session.callTool(
          'domain_check_bulk',
          { domains: [`slow-${stamp}-1.com`], mode: 'full' },
          { task: { preference: 'require' } },
        );
        await slow.cancel();
        const cancelled = await slow.settle();
        expect(cancelled.outcome.status).toBe('cancelled');
      } finally {
        await session.close();
        await client.close();
      }
    });
  });
}
