// The redirect URIs a client may register (api/oauth/redirect-uris.ts), the operator's OAUTH_REDIRECT_SCHEMES
// (lib/config-schema.ts), and how a client read back from the store is held to rules newer than its registration
// (api/oauth/registration.ts).
import { errors } from 'oidc-provider';
import { describe, expect, it } from 'vitest';
import { checkClientMetadata } from '../../../../api/oauth/registration.ts';
import { isReverseDomainScheme, redirectFault } from '../../../../api/oauth/redirect-uris.ts';
import { loadConfig } from '../../../../lib/config.ts';
import { DANGEROUS } from '../../../support/redirect-uris.ts';

const WHY = "it runs code, shows local data or opens an operating-system handler, never an app's sign-in";

describe('redirect URIs a client may register', () => {
  it.each(DANGEROUS)('refuses %s, naming its scheme', (uri) => {
    const scheme = uri.slice(0, uri.indexOf(':'));
    expect(redirectFault(uri)).toBe(`must not use the ${scheme} scheme: ${WHY}`);
  });

  it('refuses the rest of the script, local-data and handler schemes, and the ms-* and microsoft-* families', () => {
    for (const uri of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:text/html,x',
      'vbscript:x',
      'file:///etc/passwd',
      'blob:https://app.example/1',
      'about:blank',
      'ms-officecmd:{}',
      'ms-word:ofe|u|https://x/a.docx',
      'microsoft-edge:https://x',
      'mailto:a@example.com',
      'x-apple.systempreferences:com.apple.preference.security',
    ])
      expect(redirectFault(uri), uri).toMatch(/^must not use the [a-z.-]+ scheme/);
  });

  it("accepts Cursor's callback, a reverse-domain scheme, loopback http on any port and https", () => {
    for (const uri of [
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'com.example.app:/cb',
      'com.example.app://oauth/callback',
      'http://127.0.0.1:53123/callback',
      'http://localhost:8787/callback',
      'http://[::1]:3118/callback',
      'https://claude.ai/api/mcp/auth_callback',
      'https://vscode.dev/redirect',
    ])
      expect(redirectFault(uri), uri).toBeNull();
  });

  it("accepts the other sourced clients' callbacks: Claude's desktop app, Cline in VS Code (Insiders)", () => {
    for (const uri of [
      'claude://claude.ai/mcp-auth-callback/sdk',
      'vscode://saoudrizwan.claude-dev/mcp-auth/callback/3f9a0c',
      'vscode-insiders://saoudrizwan.claude-dev/mcp-auth/callback/3f9a0c',
    ])
      expect(redirectFault(uri), uri).toBeNull();
  });

  it("accepts a known client's scheme only for its sign-in callback, never its other deep links", () => {
    for (const uri of [
      'cursor://anysphere.cursor-deeplink/mcp/install?name=x&config=e30=',
      'cursor://evil.example/oauth/callback',
      'cursor://anysphere.cursor-mcp/settings',
      'cursor://anysphere.cursor-mcp/oauth/../mcp/install',
      'vscode:mcp/install?%7B%22name%22%3A%22x%22%7D',
      'vscode://vscode.git/clone?url=https://x/y.git',
      'claude://claude.ai/settings/connectors',
    ])
      expect(redirectFault(uri), uri).toMatch(/^uses the [a-z-]+ scheme for something else than .*'s sign-in/);
    expect(redirectFault('cursor://anysphere.cursor-deeplink/mcp/install')).toContain(
      "Cursor's sign-in, cursor://anysphere.cursor-mcp/oauth/...",
    );
  });

  it('refuses any other private-use scheme, saying what is accepted', () => {
    for (const uri of ['myapp://callback', 'windsurf://callback', 'steam://run/1', 'zoommtg://x', 'app.:/cb'])
      expect(redirectFault(uri), uri).toMatch(
        /^uses the scheme [^ ]+, which is not accepted here: .*OAUTH_REDIRECT_SCHEMES/,
      );
  });

  it('refuses plain http off loopback, fragments, user info and what is no absolute URI', () => {
    expect(redirectFault('http://assistant.example/cb')).toMatch(/^must be https, or http on a loopback address/);
    expect(redirectFault('https://app.example/cb#x')).toBe('must not have a fragment');
    expect(redirectFault('com.example.app:/cb#x')).toBe('must not have a fragment');
    expect(redirectFault('https://user:secret@app.example/cb')).toBe('must not carry user info');
    expect(redirectFault('cursor://user@anysphere.cursor-mcp/oauth/callback')).toBe('must not carry user info');
    for (const uri of ['1app://callback', 'no scheme at all', '/relative/cb', ''])
      expect(redirectFault(uri), uri).toBe('is not an absolute URI with a valid scheme');
  });

  it('takes the reverse domain names of RFC 8252 section 7.1 as private-use schemes, nothing else', () => {
    for (const scheme of ['com.example.app', 'io.github.someone', 'COM.Example.App', 'xn--p1ai.example.app'])
      expect(isReverseDomainScheme(scheme), scheme).toBe(true);
    for (const scheme of ['cursor', 'x-apple.systempreferences', 'com', 'com..app', 'com.-app', 'c.app', '1com.app'])
      expect(isReverseDomainScheme(scheme), scheme).toBe(false);
  });

  it('accepts any URI of a scheme the operator lists, and only then', () => {
    const extra = new Set(['myapp', 'vscode']);
    expect(redirectFault('myapp://callback', extra)).toBeNull();
    expect(redirectFault('vscode://some.extension/callback', extra)).toBeNull();
    expect(redirectFault('myapp://callback')).not.toBeNull();
    // Never a refused scheme, whatever the list says (the configuration refuses to list one, too).
    expect(redirectFault('ms-settings:privacy', new Set(['ms-settings']))).toMatch(/^must not use the ms-settings/);
  });
});

describe('OAUTH_REDIRECT_SCHEMES', () => {
  const config = (value?: string) =>
    loadConfig({
      DATA_DIR: '/tmp/netops-oauth-schemes',
      ...(value === undefined ? {} : { OAUTH_REDIRECT_SCHEMES: value }),
    });

  it('is empty by default, and a comma list of schemes, lower-cased, a trailing colon dropped', () => {
    expect(config().oauthRedirectSchemes).toEqual([]);
    expect(config('myapp, Com.Example.Other:,myapp').oauthRedirectSchemes).toEqual(['myapp', 'com.example.other']);
  });

  it.each([
    ['ms-msdt', 'must not list ms-msdt'],
    ['search-ms', 'must not list search-ms'],
    ['myapp,shell', 'must not list shell'],
    ['view-source', 'must not list view-source'],
    ['filesystem', 'must not list filesystem'],
    ['javascript', 'must not list javascript'],
    ['data', 'must not list data'],
    ['MS-Settings:', 'must not list ms-settings'],
    ['http', 'must not list http: https is always accepted, http only on a loopback address'],
    ['1app', 'must list URI schemes such as com.example.app: "1app" is not one'],
    ['my app', 'must list URI schemes'],
  ])('refuses %s, naming the variable', (value, message) => {
    expect(() => config(value)).toThrow(`Invalid configuration: OAUTH_REDIRECT_SCHEMES ${message}`);
  });
});

describe('names and URIs a client may register', () => {
  const refusal = (metadata: Record<string, unknown>) => {
    try {
      checkClientMetadata(metadata.redirect_uris, metadata);
    } catch (err) {
      return (err as InstanceType<typeof errors.InvalidClientMetadata>).error_description;
    }
    return null;
  };
  const uris = ['https://app.example/cb'];

  it('refuses control characters and those that turn the direction of text, naming the field', () => {
    expect(refusal({ client_name: 'Claude Desktop\u202e', redirect_uris: uris })).toBe(
      'client_name: must not hold control or text-direction characters (U+202E at 14)',
    );
    expect(refusal({ client_name: 'a\u2066b', redirect_uris: uris })).toMatch(/^client_name: .*U\+2066 at 1/);
    expect(refusal({ client_name: 'tab\there', redirect_uris: uris })).toMatch(/U\+0009/);
    expect(refusal({ client_uri: 'https://app.example/\u200f', redirect_uris: uris })).toMatch(/^client_uri: /);
    expect(refusal({ contacts: ['ok@example.com', 'x\u202d@example.com'], redirect_uris: uris })).toMatch(
      /^contacts: .*U\+202D/,
    );
    expect(refusal({ redirect_uris: ['https://app.example/cb\u202e'] })).toMatch(/^redirect_uris: .*U\+202E/);
  });

  it('takes names in any script, emoji included, and keeps stored clients that hold them', () => {
    expect(refusal({ client_name: 'Клиент 客户端 عميل 👩‍💻', redirect_uris: uris })).toBeNull();
    const stored = { client_id: 'abc', client_name: 'Old\u202e', redirect_uris: uris };
    checkClientMetadata(uris, stored, { stored: true });
    expect(stored.client_name).toBe('Old\u202e');
  });
});

describe('a client read back from the store', () => {
  const stored = (uris: string[], extraSchemes?: ReadonlySet<string>) => {
    const metadata: Record<string, unknown> = { client_id: 'abc', redirect_uris: uris };
    checkClientMetadata(uris, metadata, { stored: true, extraSchemes });
    return metadata.redirect_uris;
  };

  it('loses the redirect URIs the rules now refuse and keeps the others', () => {
    expect(stored(['https://fine.example/cb', 'ms-settings:privacy', 'myapp://cb'])).toEqual([
      'https://fine.example/cb',
    ]);
    expect(stored(['myapp://cb', 'http://127.0.0.1:9/cb'], new Set(['myapp']))).toEqual([
      'myapp://cb',
      'http://127.0.0.1:9/cb',
    ]);
    // None left: the library then refuses the client ("redirect_uris must contain members").
    expect(stored(['shell:startup'])).toEqual([]);
  });

  it('is the only case that drops anything: a registration or metadata document is refused whole', () => {
    const metadata = {
      client_id: 'https://docs.example/client.json',
      redirect_uris: ['https://fine.example/cb', 'shell:x'],
    };
    let thrown: unknown;
    try {
      checkClientMetadata(metadata.redirect_uris, metadata);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(errors.InvalidClientMetadata);
    expect((thrown as InstanceType<typeof errors.InvalidClientMetadata>).error_description).toBe(
      `redirect_uris: "shell:x" must not use the shell scheme: ${WHY}`,
    );
    expect(metadata.redirect_uris).toEqual(['https://fine.example/cb', 'shell:x']);
  });
});
