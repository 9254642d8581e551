// IPv6: the blocks the SSRF guard (address-policy.ts) refuses, from the registries and versions that
// special-addresses.ts names, which also holds the row type and the IPv4 table.
import { ANYCAST, AS112, registryRow, type SpecialBlock } from './special-addresses.ts';

const special = registryRow('ipv6-special');
const space = registryRow('ipv6-space');
const rfcOnly = registryRow('rfc');
const IDENTIFIERS = 'identifiers, not locators';
const PROTOCOL_ASSIGNMENT = 'an IETF protocol assignment, not a web destination';

/** IPv6: every block here is refused, unless an IPv4 embedding (special-addresses-embeddings.ts) is more specific. */
export const SPECIAL_IPV6: readonly SpecialBlock[] = [
  special('::1/128', 'Loopback Address', 'RFC 4291', false),
  special('::/128', 'Unspecified Address', 'RFC 4291', false),
  special('64:ff9b:1::/48', 'IPv4-IPv6 Translat. (local-use NAT64)', 'RFC 8215', false),
  special('100::/64', 'Discard-Only Address Block', 'RFC 6666', false),
  special('100:0:0:1::/64', 'Dummy IPv6 Prefix', 'RFC 9780', false),
  special('2001::/23', 'IETF Protocol Assignments', 'RFC 2928', false),
  special('2001:1::1/128', 'Port Control Protocol Anycast', 'RFC 7723', true, ANYCAST),
  special('2001:1::2/128', 'Traversal Using Relays around NAT Anycast', 'RFC 8155', true, ANYCAST),
  special('2001:1::3/128', 'DNS-SD Service Registration Protocol Anycast', 'RFC 9665', true, ANYCAST),
  special('2001:2::/48', 'Benchmarking', 'RFC 5180, RFC Errata 1752', false),
  special('2001:3::/32', 'AMT', 'RFC 7450', true, PROTOCOL_ASSIGNMENT),
  special('2001:4:112::/48', 'AS112-v6', 'RFC 7535', true, AS112),
  special('2001:10::/28', 'Deprecated (previously ORCHID)', 'RFC 4843', null, IDENTIFIERS),
  special('2001:20::/28', 'ORCHIDv2', 'RFC 7343', true, IDENTIFIERS),
  special('2001:30::/28', 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', 'RFC 9374', true, IDENTIFIERS),
  special('2001:db8::/32', 'Documentation', 'RFC 3849', false),
  special('2620:4f:8000::/48', 'Direct Delegation AS112 Service', 'RFC 7534', true, AS112),
  special('3fff::/20', 'Documentation', 'RFC 9637', false),
  special('5f00::/16', 'Segment Routing (SRv6) SIDs', 'RFC 9602', false),
  special('fc00::/7', 'Unique-Local', 'RFC 4193, RFC 8190', false),
  special('fe80::/10', 'Link-Local Unicast', 'RFC 4291', false),
  rfcOnly('fec0::/10', 'Site-Local (deprecated)', 'RFC 3879', null, 'deprecated, still routed inside some sites'),
  space('ff00::/8', 'Multicast', 'RFC 4291 §2.7', null, 'multicast, not one host'),
  // The rest of the IPv6 address space outside 2000::/3 (IANA IPv6 Address Space registry).
  ...[
    '::/8',
    '100::/8',
    '200::/7',
    '400::/6',
    '800::/5',
    '1000::/4',
    '4000::/3',
    '6000::/3',
    '8000::/3',
    'a000::/3',
    'c000::/3',
    'e000::/4',
    'f000::/5',
    'f800::/6',
    'fe00::/9',
  ].map((cidr) => space(cidr, 'Reserved by IETF', 'RFC 4291', null, 'outside global unicast 2000::/3')),
];
