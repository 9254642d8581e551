// The address blocks the SSRF guard (address-policy.ts) refuses, in one table, and the IPv6 forms
// that carry an IPv4 address, which it unwraps. The table follows:
//   IANA IPv4 Special-Purpose Address Registry  https://www.iana.org/assignments/iana-ipv4-special-registry
//   IANA IPv6 Special-Purpose Address Registry  https://www.iana.org/assignments/iana-ipv6-special-registry
// in their versions last updated 2025-10-09. Written from knowledge of the registries, not from a
// download: that date is read from a stored copy of the IPv6 registry's XML header (its rows up to
// RFC 9780's 100:0:0:1::/64); the IPv4 rows are those of its 2020-09-04 version (RFC 8880's
// 192.0.0.170-171 the newest) plus 192.88.99.2/32, which later transcriptions dated 2025-10-09 show.
// Check it against the registries when they change. Each row's `rfc` is the RFC it is taken from.
// Each row keeps the registry's name, RFC and "Globally Reachable" value (null: N/A, blank, or not
// listed). Every row the registries list is refused, including the few marked globally reachable:
// anycast service addresses (PCP, TURN, DNS-SD SRP), AMT relays, AS112 sinks, ORCHIDv2 and DRIP
// identifiers are not destinations a user-chosen URL should reach (`why` says so row by row). The
// two exceptions are IPv4-mapped and NAT64 well-known addresses (IPV4_EMBEDDINGS, followsEmbedded):
// the IPv4 address they carry decides.
// Rows whose `source` is 'ipv4-space' / 'ipv6-space' come from the IANA IPv4 and IPv6 Address Space
// registries (https://www.iana.org/assignments/ipv4-address-space, .../ipv6-address-space): multicast,
// and every IPv6 block outside global unicast 2000::/3 that IANA keeps reserved. Rows marked 'rfc'
// come from an RFC alone (deprecated forms the registries no longer list).
// Matching is most specific first: 192.0.0.8/32 is named "IPv4 dummy address", not "IETF Protocol
// Assignments"; ::1/128 is "Loopback Address", not an IPv4-compatible form.

export interface SpecialBlock {
  readonly cidr: string;
  /** As the registry names it. */
  readonly name: string;
  readonly rfc: string;
  /** The registry's "Globally Reachable" column; null for N/A, blank, or a block it does not list. */
  readonly globallyReachable: boolean | null;
  readonly source: 'ipv4-special' | 'ipv6-special' | 'ipv4-space' | 'ipv6-space' | 'rfc';
  /** Why it is refused although the registry does not say "not globally reachable". */
  readonly why?: string;
}

const ANYCAST = 'an anycast address of one protocol, not a web destination';

/** IPv4: every block here is refused. */
export const SPECIAL_IPV4: readonly SpecialBlock[] = [
  { cidr: '0.0.0.0/8', name: '"This network"', rfc: 'RFC 791 §3.2', globallyReachable: false, source: 'ipv4-special' },
  {
    cidr: '0.0.0.0/32',
    name: '"This host on this network"',
    rfc: 'RFC 1122 §3.2.1.3',
    globallyReachable: false,
    source: 'ipv4-special',
  },
  { cidr: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918', globallyReachable: false, source: 'ipv4-special' },
  {
    cidr: '100.64.0.0/10',
    name: 'Shared Address Space',
    rfc: 'RFC 6598',
    globallyReachable: false,
    source: 'ipv4-special',
  },
  { cidr: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122 §3.2.1.3', globallyReachable: false, source: 'ipv4-special' },
  { cidr: '169.254.0.0/16', name: 'Link Local', rfc: 'RFC 3927', globallyReachable: false, source: 'ipv4-special' },
  { cidr: '172.16.0.0/12', name: 'Private-Use', rfc: 'RFC 1918', globallyReachable: false, source: 'ipv4-special' },
  {
    cidr: '192.0.0.0/24',
    name: 'IETF Protocol Assignments',
    rfc: 'RFC 6890 §2.1',
    globallyReachable: false,
    source: 'ipv4-special',
  },
  {
    cidr: '192.0.0.0/29',
    name: 'IPv4 Service Continuity Prefix',
    rfc: 'RFC 7335',
    globallyReachable: false,
    source: 'ipv4-special',
  },
  {
    cidr: '192.0.0.8/32',
    name: 'IPv4 dummy address',
    rfc: 'RFC 7600',
    globallyReachable: false,
    source: 'ipv4-special',
  },
  {
    cidr: '192.0.0.9/32',
    name: 'Port Control Protocol Anycast',
    rfc: 'RFC 7723',
    globallyReachable: true,
    source: 'ipv4-special',
    why: ANYCAST,
  },
  {
    cidr: '192.0.0.10/32',
    name: 'Traversal Using Relays around NAT Anycast',
    rfc: 'RFC 8155',
    globallyReachable: true,
    source: 'ipv4-special',
    why: ANYCAST,
  },
  {
    cidr: '192.0.0.170/32',
    name: 'NAT64/DNS64 Discovery',
    rfc: 'RFC 8880 §7.1, RFC 7050 §2.2',
    globallyReachable: false,
    source: 'ipv4-special',
  },
  {
    cidr: '192.0.0.171/32',
    name: 'NAT64/DNS64 Discovery',
    rfc: 'RFC 8880 §7.1, RFC 7050 §2.2',
    globallyReachable: false,
    source: 'ipv4-special',
  },
  {
    cidr: '192.0.2.0/24',
    name: 'Documentation (TEST-NET-1)',
    rfc: 'RFC 5737',
    globallyReachable: false,
    source: 'ipv4-special',
  },
  {
    cidr: '192.31.196.0/24',
    name: 'AS112-v4',
    rfc: 'RFC 7535',
    globallyReachable: true,
    source: 'ipv4-special',
    why: 'DNS sinks for queries about private space',
  },
  {
    cidr: '192.52.193.0/24',
    name: 'AMT',
    rfc: 'RFC 7450',
    globallyReachable: true,
    source: 'ipv4-special',
    why: 'multicast tunnelling relays',
  },
  {
    cidr: '192.88.99.0/24',
    name: 'Deprecated (6to4 Relay Anycast)',
    rfc: 'RFC 7526',
    globallyReachable: null,
    source: 'ipv4-special',
    why: 'deprecated relay anycast',
  },
  {
    cidr: '192.88.99.2/32',
    name: '6a44-relay anycast address',
    rfc: 'RFC 6751',
    globallyReachable: false,
    source: 'ipv4-special',
  },
  { cidr: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918', globallyReachable: false, source: 'ipv4-special' },
  {
    cidr: '192.175.48.0/24',
    name: 'Direct Delegation AS112 Service',
    rfc: 'RFC 7534',
    globallyReachable: true,
    source: 'ipv4-special',
    why: 'DNS sinks for queries about private space',
  },
  { cidr: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544', globallyReachable: false, source: 'ipv4-special' },
  {
    cidr: '198.51.100.0/24',
    name: 'Documentation (TEST-NET-2)',
    rfc: 'RFC 5737',
    globallyReachable: false,
    source: 'ipv4-special',
  },
  {
    cidr: '203.0.113.0/24',
    name: 'Documentation (TEST-NET-3)',
    rfc: 'RFC 5737',
    globallyReachable: false,
    source: 'ipv4-special',
  },
  {
    cidr: '224.0.0.0/4',
    name: 'Multicast',
    rfc: 'RFC 5771',
    globallyReachable: null,
    source: 'ipv4-space',
    why: 'multicast, not one host',
  },
  { cidr: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112 §4', globallyReachable: false, source: 'ipv4-special' },
  {
    cidr: '255.255.255.255/32',
    name: 'Limited Broadcast',
    rfc: 'RFC 8190, RFC 919 §7',
    globallyReachable: false,
    source: 'ipv4-special',
  },
];

const IETF_RESERVED = {
  name: 'Reserved by IETF',
  rfc: 'RFC 4291',
  globallyReachable: null,
  source: 'ipv6-space',
  why: 'outside global unicast 2000::/3',
} as const;
const PROTOCOL_ASSIGNMENT = 'an IETF protocol assignment, not a web destination';

/** IPv6: every block here is refused, unless an IPv4 embedding below is more specific. */
export const SPECIAL_IPV6: readonly SpecialBlock[] = [
  { cidr: '::1/128', name: 'Loopback Address', rfc: 'RFC 4291', globallyReachable: false, source: 'ipv6-special' },
  { cidr: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291', globallyReachable: false, source: 'ipv6-special' },
  {
    cidr: '64:ff9b:1::/48',
    name: 'IPv4-IPv6 Translat. (local-use NAT64)',
    rfc: 'RFC 8215',
    globallyReachable: false,
    source: 'ipv6-special',
  },
  {
    cidr: '100::/64',
    name: 'Discard-Only Address Block',
    rfc: 'RFC 6666',
    globallyReachable: false,
    source: 'ipv6-special',
  },
  {
    cidr: '100:0:0:1::/64',
    name: 'Dummy IPv6 Prefix',
    rfc: 'RFC 9780',
    globallyReachable: false,
    source: 'ipv6-special',
  },
  {
    cidr: '2001::/23',
    name: 'IETF Protocol Assignments',
    rfc: 'RFC 2928',
    globallyReachable: false,
    source: 'ipv6-special',
  },
  {
    cidr: '2001:1::1/128',
    name: 'Port Control Protocol Anycast',
    rfc: 'RFC 7723',
    globallyReachable: true,
    source: 'ipv6-special',
    why: ANYCAST,
  },
  {
    cidr: '2001:1::2/128',
    name: 'Traversal Using Relays around NAT Anycast',
    rfc: 'RFC 8155',
    globallyReachable: true,
    source: 'ipv6-special',
    why: ANYCAST,
  },
  {
    cidr: '2001:1::3/128',
    name: 'DNS-SD Service Registration Protocol Anycast',
    rfc: 'RFC 9665',
    globallyReachable: true,
    source: 'ipv6-special',
    why: ANYCAST,
  },
  {
    cidr: '2001:2::/48',
    name: 'Benchmarking',
    rfc: 'RFC 5180, RFC Errata 1752',
    globallyReachable: false,
    source: 'ipv6-special',
  },
  {
    cidr: '2001:3::/32',
    name: 'AMT',
    rfc: 'RFC 7450',
    globallyReachable: true,
    source: 'ipv6-special',
    why: PROTOCOL_ASSIGNMENT,
  },
  {
    cidr: '2001:4:112::/48',
    name: 'AS112-v6',
    rfc: 'RFC 7535',
    globallyReachable: true,
    source: 'ipv6-special',
    why: 'DNS sinks for queries about private space',
  },
  {
    cidr: '2001:10::/28',
    name: 'Deprecated (previously ORCHID)',
    rfc: 'RFC 4843',
    globallyReachable: null,
    source: 'ipv6-special',
    why: 'identifiers, not locators',
  },
  {
    cidr: '2001:20::/28',
    name: 'ORCHIDv2',
    rfc: 'RFC 7343',
    globallyReachable: true,
    source: 'ipv6-special',
    why: 'identifiers, not locators',
  },
  {
    cidr: '2001:30::/28',
    name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix',
    rfc: 'RFC 9374',
    globallyReachable: true,
    source: 'ipv6-special',
    why: 'identifiers, not locators',
  },
  { cidr: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849', globallyReachable: false, source: 'ipv6-special' },
  {
    cidr: '2620:4f:8000::/48',
    name: 'Direct Delegation AS112 Service',
    rfc: 'RFC 7534',
    globallyReachable: true,
    source: 'ipv6-special',
    why: 'DNS sinks for queries about private space',
  },
  { cidr: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637', globallyReachable: false, source: 'ipv6-special' },
  {
    cidr: '5f00::/16',
    name: 'Segment Routing (SRv6) SIDs',
    rfc: 'RFC 9602',
    globallyReachable: false,
    source: 'ipv6-special',
  },
  {
    cidr: 'fc00::/7',
    name: 'Unique-Local',
    rfc: 'RFC 4193, RFC 8190',
    globallyReachable: false,
    source: 'ipv6-special',
  },
  { cidr: 'fe80::/10', name: 'Link-Local Unicast', rfc: 'RFC 4291', globallyReachable: false, source: 'ipv6-special' },
  {
    cidr: 'fec0::/10',
    name: 'Site-Local (deprecated)',
    rfc: 'RFC 3879',
    globallyReachable: null,
    source: 'rfc',
    why: 'deprecated, still routed inside some sites',
  },
  {
    cidr: 'ff00::/8',
    name: 'Multicast',
    rfc: 'RFC 4291 §2.7',
    globallyReachable: null,
    source: 'ipv6-space',
    why: 'multicast, not one host',
  },
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
  ].map((cidr): SpecialBlock => ({ cidr, ...IETF_RESERVED })),
];

/** Where an IPv6 form keeps an IPv4 address: its first bit (0 = most significant) and a mask it is XORed with. */
export interface EmbeddedIpv4 {
  readonly role: string;
  readonly bit: number;
  readonly xor?: number;
}

export interface Ipv4Embedding extends SpecialBlock {
  readonly embedded: readonly EmbeddedIpv4[];
  /**
   * True: the embedded IPv4 address decides (a public one is let through, since that is where the
   * connection goes). False: refused whatever it carries; the embedded address only names why.
   */
  readonly followsEmbedded: boolean;
}

const LAST_32 = [{ role: '', bit: 96 }];

/**
 * The IPv6 forms with an IPv4 address at a fixed place. A form is matched before the refused blocks
 * above when it is the more specific match (::ffff:0:0/96 inside ::/8; ::/128 and ::1/128 stay
 * unspecified and loopback, not IPv4-compatible 0.0.0.0 and 0.0.0.1).
 * Not here: local-use NAT64 64:ff9b:1::/48 (refused whole above: the operator picks the prefix length
 * within it, so where the IPv4 address sits is unknowable), network-specific NAT64 prefixes (any
 * global prefix, RFC 6052 §2.2) and ISATAP interface identifiers (RFC 5214): neither can be told from
 * an ordinary global address.
 */
export const IPV4_EMBEDDINGS: readonly Ipv4Embedding[] = [
  // The socket connects to the IPv4 address itself (dual-stack sockets, RFC 4291 §2.5.5.2).
  {
    cidr: '::ffff:0:0/96',
    name: 'IPv4-mapped Address',
    rfc: 'RFC 4291',
    globallyReachable: false,
    source: 'ipv6-special',
    embedded: LAST_32,
    followsEmbedded: true,
  },
  // The well-known NAT64 prefix: a NAT64 gateway forwards to the IPv4 address, and RFC 6052 §3.1 lets
  // it carry global IPv4 addresses only. This is how an IPv6-only host with DNS64 reaches IPv4 sites.
  {
    cidr: '64:ff9b::/96',
    name: 'IPv4-IPv6 Translat. (NAT64 well-known prefix)',
    rfc: 'RFC 6052',
    globallyReachable: true,
    source: 'ipv6-special',
    embedded: LAST_32,
    followsEmbedded: true,
  },
  // SIIT's IPv4-translated form: dropped by RFC 6145, inside ::/8, routed nowhere on the Internet.
  {
    cidr: '::ffff:0:0:0/96',
    name: 'IPv4-translated Address',
    rfc: 'RFC 2765 §2.1',
    globallyReachable: null,
    source: 'rfc',
    embedded: LAST_32,
    followsEmbedded: false,
    why: 'obsolete, not routed',
  },
  // Deprecated by RFC 4291; stacks that still honour it tunnel it to the IPv4 address.
  {
    cidr: '::/96',
    name: 'IPv4-compatible Address (deprecated)',
    rfc: 'RFC 4291 §2.5.5.1',
    globallyReachable: null,
    source: 'rfc',
    embedded: LAST_32,
    followsEmbedded: false,
    why: 'deprecated',
  },
  // Both reach the IPv4 address through third-party relays: 6to4 relay anycast is deprecated
  // (RFC 7526), and a Teredo address is a client behind NAT, inside 2001::/23.
  {
    cidr: '2002::/16',
    name: '6to4',
    rfc: 'RFC 3056',
    globallyReachable: null,
    source: 'ipv6-special',
    embedded: [{ role: '', bit: 16 }],
    followsEmbedded: false,
    why: 'deprecated relays',
  },
  {
    cidr: '2001::/32',
    name: 'TEREDO',
    rfc: 'RFC 4380, RFC 8190',
    globallyReachable: null,
    source: 'ipv6-special',
    embedded: [
      { role: 'server ', bit: 32 },
      { role: 'client ', bit: 96, xor: 0xffffffff },
    ],
    followsEmbedded: false,
    why: 'a tunnel to a host behind NAT, through relays',
  },
];
