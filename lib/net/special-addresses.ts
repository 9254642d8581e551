// The address blocks the SSRF guard (address-policy.ts) refuses: the IPv4 table here, the IPv6 one in
// special-addresses-ipv6.ts, and the IPv6 forms that carry an IPv4 address, which it unwraps, in
// special-addresses-embeddings.ts. The tables follow:
//   IANA IPv4 Special-Purpose Address Registry  https://www.iana.org/assignments/iana-ipv4-special-registry
//   IANA IPv6 Special-Purpose Address Registry  https://www.iana.org/assignments/iana-ipv6-special-registry
// in their versions last updated 2025-10-09. Written from knowledge of the registries, not from a
// download: that date is read from a stored copy of the IPv6 registry's XML header (its rows up to
// RFC 9780's 100:0:0:1::/64); the IPv4 rows are those of its 2020-09-04 version (RFC 8880's
// 192.0.0.170-171 the newest) plus 192.88.99.2/32, which later transcriptions dated 2025-10-09 show.
// Check them against the registries when they change. Each row's `rfc` is the RFC it is taken from.
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

export const ANYCAST = 'an anycast address of one protocol, not a web destination';

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
