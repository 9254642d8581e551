// One way to read an HTTP message's headers, for requests we capture and responses we fetch, and the
// headers that belong to a connection or frame a message rather than to what it says.

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) and those that frame a message's body: never copied from one message to another.
 */
export const CONNECTION_HEADERS = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
] as const;

/** Lower-case names; a repeated header's values joined with ", " as HTTP allows (cookies with "; ", RFC 9113 8.2.3). */
export function headerObject(rawHeaders: string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null); // a header named __proto__ is data too
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    out[name] = name in out ? `${out[name]}${name === 'cookie' ? '; ' : ', '}${value}` : value;
  }
  return out;
}
