// Which redirect URIs a client may register for the MCP endpoint's sign-in (RFC 8252, OAuth for native apps).
// An allow list, because the browser follows the redirect at once (an invalid authorization request is sent
// straight back to it) and every scheme the operating system knows opens something: `ms-msdt:` ran code
// (CVE-2022-30190), `search-ms:` and `shell:` open Explorer, `view-source:` and `filesystem:` show the browser's
// own content. Accepted:
// - https;
// - http on a loopback address, any port at sign-in (section 7.3);
// - a private-use scheme that is a reverse domain name, `com.example.app:/callback` (section 7.1): the app's
//   publisher's domain, reversed, names no handler of the operating system;
// - the sign-in callbacks of known MCP clients (KNOWN_CLIENT_REDIRECTS), and nothing else of their schemes;
// - any URI of a scheme the operator lists in OAUTH_REDIRECT_SCHEMES (lib/config-schema.ts), which never
//   admits one of the refused schemes either.
// PKCE S256, required of every client, binds the code to the app that started the sign-in (section 8.4).
import { isRefusedRedirectScheme } from '../../lib/config-schema.ts';

/**
 * The private-use callbacks of MCP clients, each with where it was found. Only the callback is accepted, not
 * its whole scheme: the same schemes carry deep links that install an MCP server (a command to run) after one
 * prompt, `cursor://anysphere.cursor-deeplink/mcp/install?...` (https://cursor.com/docs/mcp/install-links) and
 * `vscode:mcp/install?...`. An operator who wants a whole scheme lists it in OAUTH_REDIRECT_SCHEMES.
 *
 * Most clients need none of these. VS Code itself registers `https://vscode.dev/redirect`,
 * `https://insiders.vscode.dev/redirect` and `http://127.0.0.1:33418/` (microsoft/vscode,
 * src/vs/base/common/oauth.ts, fetchDynamicRegistration); Zed a loopback port, or its metadata document at
 * zed.dev (zed-industries/zed pull 51768); Claude Code, Codex and the MCP Inspector loopback ports; claude.ai
 * and ChatGPT https callbacks. No source was found of Windsurf or Goose registering a scheme of their own.
 */
export const KNOWN_CLIENT_REDIRECTS: ReadonlyArray<{
  client: string;
  schemes: readonly string[];
  host: string;
  /** The start of the callback's path. */
  path: string;
}> = [
  // `cursor://anysphere.cursor-mcp/oauth/callback`: Cursor's MCP docs (https://cursor.com/docs/mcp), as quoted
  // in makeplane/plane-mcp-server issue 159 and different-ai/openwork pull 3059.
  { client: 'Cursor', schemes: ['cursor'], host: 'anysphere.cursor-mcp', path: '/oauth/' },
  // `claude://claude.ai/mcp-auth-callback/sdk`: Claude's desktop app (anthropics/claude-code issue 93671).
  { client: 'Claude Desktop', schemes: ['claude'], host: 'claude.ai', path: '/mcp-auth-callback' },
  // `vscode://saoudrizwan.claude-dev/mcp-auth/callback/<hash>`: Cline, an MCP client inside VS Code; the scheme
  // is the editor's own, `vscode.env.uriScheme` (cline/cline src/services/mcp/McpOAuthRedirectResolver.ts and
  // src/hosts/vscode/hostbridge/env/getUriScheme.ts): `vscode-insiders` in VS Code Insiders (its product.json's
  // urlProtocol).
  {
    client: 'Cline',
    schemes: ['vscode', 'vscode-insiders'],
    host: 'saoudrizwan.claude-dev',
    path: '/mcp-auth/callback/',
  },
];

const NONE: ReadonlySet<string> = new Set();
const WHY_REFUSED = "it runs code, shows local data or opens an operating-system handler, never an app's sign-in";
const ACCEPTED =
  "a redirect URI is https, http on a loopback address, a reverse-domain scheme of the app's own " +
  "(com.example.app:/callback), a known MCP client's callback, or of a scheme listed in OAUTH_REDIRECT_SCHEMES";

/** Why a redirect URI is refused, or null. `extraSchemes`: the operator's (OAUTH_REDIRECT_SCHEMES), lower case. */
export function redirectFault(text: string, extraSchemes: ReadonlySet<string> = NONE): string | null {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase();
  const url = URL.parse(text);
  if (!scheme || !url) return 'is not an absolute URI with a valid scheme';
  if (isRefusedRedirectScheme(scheme)) return `must not use the ${scheme} scheme: ${WHY_REFUSED}`;
  if (text.includes('#')) return 'must not have a fragment';
  if (url.username || url.password || /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*@/.test(text))
    return 'must not carry user info';
  if (scheme === 'https') return null;
  if (scheme === 'http')
    return isLoopbackHost(url.hostname)
      ? null
      : 'must be https, or http on a loopback address (127.0.0.1, [::1], localhost)';
  if (extraSchemes.has(scheme) || isReverseDomainScheme(scheme)) return null;
  const known = KNOWN_CLIENT_REDIRECTS.filter((k) => k.schemes.includes(scheme));
  // The path as written and as a browser resolves it (no `..` out of the callback's path).
  const rest = text.slice(scheme.length + 1);
  if (known.some((k) => rest.startsWith(`//${k.host}${k.path}`) && url.pathname.startsWith(k.path))) return null;
  if (known.length) {
    const callbacks = known.map((k) => `${k.client}'s sign-in, ${scheme}://${k.host}${k.path}...`).join(' or ');
    return `uses the ${scheme} scheme for something else than ${callbacks}: no other ${scheme} URI is accepted`;
  }
  return `uses the scheme ${scheme}, which is not accepted here: ${ACCEPTED}`;
}

/**
 * A private-use scheme of RFC 8252 section 7.1: a domain name of the app's publisher, reversed, such as
 * `com.example.app`: at least two labels, the first a top-level domain (letters only, or an IDN's `xn--`).
 * `x-apple.systempreferences` is none: no top-level domain has a hyphen.
 */
export function isReverseDomainScheme(scheme: string): boolean {
  const labels = scheme.toLowerCase().split('.');
  return (
    labels.length >= 2 &&
    /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(labels[0]!) &&
    labels.every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label))
  );
}

/** A redirect that only a native app takes: its own scheme, or http on a loopback address. */
export function isNativeRedirect(text: string): boolean {
  const url = URL.parse(text);
  return !!url && url.protocol !== 'https:' && (url.protocol !== 'http:' || isLoopbackHost(url.hostname));
}

export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127(\.\d{1,3}){3}$/.test(hostname);
}
