// Whether two load-test targets reach the same server: an address in common, whatever the name,
// scheme or port that leads there (http and https of one host, another port of it, its address in any
// form, a second name for it), or the same origin when either's addresses are not known. What decides
// whether an unproven test may run beside another (api/services/load-tests/target-verification.ts).
import { addressKey } from './address-policy.ts';

/** A target as compared: its origin, and the addresses its host resolved to (null: not known). */
export interface TargetServer {
  origin: string;
  addresses: readonly string[] | null;
}

const keys = (addresses: readonly string[]) => addresses.map(addressKey).filter((k) => k !== null);

export function sameServer(a: TargetServer, b: TargetServer): boolean {
  if (a.origin === b.origin) return true;
  if (!a.addresses?.length || !b.addresses?.length) return false;
  const known = new Set(keys(a.addresses));
  return keys(b.addresses).some((key) => known.has(key));
}
