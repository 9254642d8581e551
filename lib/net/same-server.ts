// Whether two load-test targets reach the same server: an address in common, whatever the name,
// scheme or port that leads there (http and https of one host, another port of it, its address, a
// second name for it), or the same origin when either's addresses are not known. What decides
// whether an unproven test may run beside another (api/services/load-tests/target-verification.ts).

/** A target as compared: its origin, and the addresses its host resolved to (null: not known). */
export interface TargetServer {
  origin: string;
  addresses: readonly string[] | null;
}

/** An address as compared: an IPv4-mapped IPv6 address as the IPv4 one, hexadecimal in lower case. */
const plain = (address: string) => address.replace(/^::ffff:(?=\d+\.)/i, '').toLowerCase();

export function sameServer(a: TargetServer, b: TargetServer): boolean {
  if (a.origin === b.origin) return true;
  if (!a.addresses?.length || !b.addresses?.length) return false;
  const known = new Set(a.addresses.map(plain));
  return b.addresses.some((address) => known.has(plain(address)));
}
