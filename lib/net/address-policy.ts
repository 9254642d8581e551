// Which addresses a user-chosen URL may reach. Everything that is not plainly public unicast is
// refused: private, loopback, link-local, shared (CGNAT), multicast, documentation, benchmarking,
// reserved, and IPv6 forms that embed or translate to IPv4 (mapped, NAT64, 6to4, Teredo), which
// could carry a private IPv4 address past a check that only looks at IPv4.
// NETWORK_ALLOW (CIDRs) is the only way around it: tests and private deployments.
import { BlockList, isIP } from 'node:net';
import { parseCidr } from './cidr.ts';

const FORBIDDEN_V4 = [
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // private
  '100.64.0.0/10', // shared address space (CGNAT)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, cloud metadata services
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.88.99.0/24', // 6to4 relay anycast
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and 255.255.255.255 broadcast
];

const FORBIDDEN_V6 = [
  '::/128', // unspecified
  '::1/128', // loopback
  '::/96', // IPv4-compatible (deprecated)
  '::ffff:0:0/96', // IPv4-mapped
  '64:ff9b::/96', // NAT64
  '64:ff9b:1::/48', // local-use NAT64
  '100::/64', // discard
  '2001::/23', // IETF protocol assignments, Teredo among them
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated)
  'ff00::/8', // multicast
];

/** One list per family: Node's BlockList matches IPv4 addresses against IPv6 rules through their
 * mapped forms, so `::/96` in a shared list would catch every IPv4 address. */
function blockLists(cidrs: readonly string[]): Record<4 | 6, BlockList> {
  const lists = { 4: new BlockList(), 6: new BlockList() };
  for (const cidr of cidrs) {
    const parsed = parseCidr(cidr);
    if (!parsed) throw new TypeError(`not a CIDR: ${cidr}`);
    lists[parsed.family].addSubnet(parsed.address, parsed.prefix, parsed.family === 4 ? 'ipv4' : 'ipv6');
  }
  return lists;
}

const forbidden = blockLists([...FORBIDDEN_V4, ...FORBIDDEN_V6]);

export interface AddressPolicy {
  /** Null when the address may be reached, else why not. */
  refusal(address: string): string | null;
}

export function createAddressPolicy(allow: readonly string[] = []): AddressPolicy {
  const allowed = blockLists(allow);
  return {
    refusal(address) {
      const family = isIP(address) as 0 | 4 | 6;
      if (family === 0) return `${address} is not an IP address`;
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (allowed[family].check(address, type)) return null;
      if (forbidden[family].check(address, type)) return `${address} is a private, loopback, link-local or reserved address`;
      return null;
    },
  };
}
