// What a newcomer meets first: a landing page whose links all resolve (the OAuth metadata's
// documentation link among them), errors that say which door a credential belongs to, and the
// token script's one clear line for a wrong password.
import { describe, expect, it } from 'vitest';
import { call, newAccount, targets } from '../support/client.ts';
import { newUser } from '../support/mcp.ts';
import { runScript } from '../support/processes.ts';

describe.each(targets().map((t) => [t.name, t] as const))('first contact (%s)', (_name, target) => {
  it('answers / with a page whose every link resolves, and the MCP set-up the OAuth metadata points at', async () => {
    const res = await fetch(`${target.baseUrl}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const page = await res.text();
    expect(page).toContain(`${target.baseUrl}/mcp`);
    const links = [...page.matchAll(/href="([^"]+)"/g)]
      .map((m) => new URL(m[1]!.replace(/&amp;/g, '&'), `${target.baseUrl}/`).href)
      .filter((u) => u.startsWith(target.baseUrl));
    expect(links.length).toBeGreaterThan(3);
    for (const link of links) expect((await fetch(link)).status, link).toBeLessThan(400);
    const metadata = await (await fetch(`${target.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json();
    const documentation = new URL(metadata.resource_documentation);
    expect((await fetch(documentation)).status).toBe(200);
    expect(page).toContain(`id="${documentation.hash.slice(1)}"`);
  });

  it('answers a host that does not exist the same from every endpoint: 400 naming the field', async () => {
    // .invalid never resolves (RFC 6761), so no resolver is asked.
    const { key } = await newAccount(target);
    const expected = { status: 400, message: 'url: nosuch.invalid does not resolve to an address' };
    const headers = await call(
      target,
      'GET',
      `/api/v1/network/http-headers?url=${encodeURIComponent('https://nosuch.invalid/')}`,
      { key },
    );
    const discover = await call(target, 'POST', '/api/v1/site/discover', {
      key,
      json: { url: 'https://nosuch.invalid/' },
    });
    const audit = await call(target, 'POST', '/api/v1/site/audit', { key, json: { url: 'https://nosuch.invalid/' } });
    for (const reply of [headers, discover, audit])
      expect({ status: reply.status, message: reply.body.message }).toEqual(expected);
  });

  it('says which door a credential belongs to', async () => {
    const onApi = await call(target, 'GET', '/api/v1/network/my-webhooks', {
      bearer: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln',
    });
    expect(onApi.status).toBe(401);
    expect(onApi.body.message).toBe(
      'This is an OAuth access token, which works on the MCP endpoint (/mcp); /api/v1 takes an API key ' +
        '(ntk_...) as X-API-Key or Authorization: Bearer',
    );
    const onMcp = await fetch(`${target.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer ntk_not_for_mcp', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(onMcp.status).toBe(401);
    const refused = await onMcp.json();
    expect(refused.message).toMatch(
      /^This is an API key, which works on \/api\/v1; the MCP endpoint takes an OAuth access token/,
    );
    // the error shape of every door
    expect(refused).toMatchObject({ success: false, code: 401, error_code: 'unauthorized' });
  });

  it('`npm run mcp-token` with a wrong password prints one line saying so', async () => {
    const user = await newUser(target);
    const result = await runScript(
      'scripts/mcp-token.ts',
      ['--url', `${target.baseUrl}/mcp`, '--email', user.email, '--password', 'not the password at all'],
      target.env,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      'sign-in failed: the sign-in was refused: Wrong email or password.',
    ]);
  });
});
