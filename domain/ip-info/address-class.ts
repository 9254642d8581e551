// What kind of address an IP is (RFC 6890 special-purpose registries), for the ip-info answer.
import { BlockList, isIP } from 'node:net';

type AddressClass =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'multicast'
  | 'documentation'
  | 'unspecified'
  | 'reserved'
  | 'public';

// First match wins: more specific ranges first.
const CLASSES: Array<[AddressClass, 4 | 6, string, number]> = [
  ['unspecified', 4, '0.0.0.0', 8],
  ['loopback', 4, '127.0.0.0', 8],
  ['private', 4, '10.0.0.0', 8],
  ['private', 4, '172.16.0.0', 12],
  ['private', 4, '192.168.0.0', 16],
  ['shared', 4, '100.64.0.0', 10],
  ['link-local', 4, '169.254.0.0', 16],
  ['documentation', 4, '192.0.2.0', 24],
  ['documentation', 4, '198.51.100.0', 24],
  ['documentation', 4, '203.0.113.0', 24],
  ['reserved', 4, '192.0.0.0', 24],
  ['reserved', 4, '198.18.0.0', 15],
  ['multicast', 4, '224.0.0.0', 4],
  ['reserved', 4, '240.0.0.0', 4],
  ['unspecified', 6, '::', 128],
  ['loopback', 6, '::1', 128],
  ['private', 6, 'fc00::', 7],
  ['link-local', 6, 'fe80::', 10],
  ['documentation', 6, '2001:db8::', 32],
  ['multicast', 6, 'ff00::', 8],
  ['reserved', 6, '::ffff:0:0', 96],
  ['reserved', 6, '100::', 64],
  ['reserved', 6, '2001::', 23],
];

const lists = CLASSES.map(([name, family, address, prefix]) => {
  const list = new BlockList();
  list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return { name, family, list };
});

export function classifyAddress(ip: string): { version: 4 | 6; addressClass: AddressClass } {
  const version = isIP(ip) as 4 | 6;
  const hit = lists.find((c) => c.family === version && c.list.check(ip, version === 4 ? 'ipv4' : 'ipv6'));
  return { version, addressClass: hit?.name ?? 'public' };
}
