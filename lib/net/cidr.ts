// CIDR notation (`10.0.0.0/8`, `::1/128`): configuration (NETWORK_ALLOW, TRUSTED_PROXIES) and the address lists.
import { isIP } from 'node:net';

export interface Cidr {
  address: string;
  prefix: number;
  family: 4 | 6;
}

/** The network of `value`, or null when it is not an address and a prefix that fits its family. */
export function parseCidr(value: string): Cidr | null {
  const [address, prefixText, ...rest] = value.split('/');
  if (rest.length || !address || prefixText === undefined || !/^\d{1,3}$/.test(prefixText)) return null;
  const family = isIP(address);
  const prefix = Number(prefixText);
  if (family === 4 && prefix <= 32) return { address, prefix, family };
  if (family === 6 && prefix <= 128) return { address, prefix, family };
  return null;
}
