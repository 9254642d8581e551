// A URL's host as sockets, SNI and address checks want it: an IPv6 literal without its brackets.

/** `[::1]` → `::1`; a name or an IPv4 address as it is. A string is taken as a URL's host part (no port). */
export function bareHost(url: URL | string): string {
  return (typeof url === 'string' ? url : url.hostname).replace(/^\[|\]$/g, '');
}
