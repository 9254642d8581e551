// Which redirect URIs a client may register for the MCP endpoint's sign-in (RFC 8252, OAuth for
// native apps): https; http on a loopback address, any port at sign-in (section 7.3); a private-use
// scheme of the app's own, `cursor://host/path` or `com.example.app:/path` (section 7.1). PKCE S256,
// required of every client, binds the code to the app that started the sign-in (section 8.4).

/** Schemes no redirect may use: they run code or read local data, or are not a place to return to. */
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'about:', 'blob:', 'ws:', 'wss:']);

/** Why a redirect URI is refused, or null. */
export function redirectFault(text: string): string | null {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)?.[1];
  const url = URL.parse(text);
  if (!scheme || !url) return 'is not an absolute URI with a valid scheme';
  if (REFUSED_SCHEMES.has(url.protocol)) return `must not use the ${scheme} scheme`;
  if (text.includes('#')) return 'must not have a fragment';
  if (url.username || url.password || /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*@/.test(text))
    return 'must not carry user info';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return 'must be https, or http on a loopback address (127.0.0.1, [::1], localhost)';
  return null;
}

/** A redirect that only a native app takes: its own scheme, or http on a loopback address. */
export function isNativeRedirect(text: string): boolean {
  const url = URL.parse(text);
  return !!url && url.protocol !== 'https:' && (url.protocol !== 'http:' || isLoopbackHost(url.hostname));
}

export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127(\.\d{1,3}){3}$/.test(hostname);
}
