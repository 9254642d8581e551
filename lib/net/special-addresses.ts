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
// come from an RFC alone (deprecated forms the registries no longer list). Rows marked 'cloud' are a
// cloud platform's host endpoints on public addresses, which answer only from inside its machines (the
// metadata services of the others sit in link-local, unique-local or shared space, refused above):
// their `rfc` is the vendor's page that documents them.
// Matching is most specific first: 192.0.0.8/32 is named "IPv4 dummy address", not "IETF Protocol
// Assignments"; ::1/128 is "Loopback Address", not an IPv4-compatible form.

export interface SpecialBlock {
  readonly cidr: string;
  /** As the registry names it. */
  readonly name: string;
  readonly rfc: string;
  /** The registry's "Globally Reachable" column; null for N/A, blank, or a block it does not list. */
  readonly globallyReachable: boolean | null;
  readonly source: 'ipv4-special' | 'ipv6-special' | 'ipv4-space' | 'ipv6-space' | 'rfc' | 'cloud';
  /** Why it is refused although the registry does not say "not globally reachable". */
  readonly why?: string;
}

export const ANYCAST = 'an anycast address of one protocol, not a web destination';
export const AS112 = 'DNS sinks for queries about private space';

/** A row of the table `source` names, in the registry's column order: CIDR, name, RFC, "Globally Reachable". */
export const registryRow =
  (source: SpecialBlock['source']) =>
  (cidr: string, name: string, rfc: string, globallyReachable: boolean | null, why?: string): SpecialBlock =>
    why === undefined
      ? { cidr, name, rfc, globallyReachable, source }
      : { cidr, name, rfc, globallyReachable, source, why };
const special = registryRow('ipv4-special');
const space = registryRow('ipv4-space');
const cloud = registryRow('cloud');

/** IPv4: every block here is refused. */
export const SPECIAL_IPV4: readonly SpecialBlock[] = [
  special('0.0.0.0/8', '"This network"', 'RFC 791 §3.2', false),
  special('0.0.0.0/32', '"This host on this network"', 'RFC 1122 §3.2.1.3', false),
  special('10.0.0.0/8', 'Private-Use', 'RFC 1918', false),
  special('100.64.0.0/10', 'Shared Address Space', 'RFC 6598', false),
  special('127.0.0.0/8', 'Loopback', 'RFC 1122 §3.2.1.3', false),
  cloud(
    '168.63.129.16/32',
    'Azure WireServer',
    'https://learn.microsoft.com/azure/virtual-network/what-is-ip-address-168-63-129-16',
    null,
    "Azure's host endpoint (a machine's configuration, DNS, health probes): reachable from its machines only",
  ),
  special('169.254.0.0/16', 'Link Local', 'RFC 3927', false),
  special('172.16.0.0/12', 'Private-Use', 'RFC 1918', false),
  special('192.0.0.0/24', 'IETF Protocol Assignments', 'RFC 6890 §2.1', false),
  special('192.0.0.0/29', 'IPv4 Service Continuity Prefix', 'RFC 7335', false),
  special('192.0.0.8/32', 'IPv4 dummy address', 'RFC 7600', false),
  special('192.0.0.9/32', 'Port Control Protocol Anycast', 'RFC 7723', true, ANYCAST),
  special('192.0.0.10/32', 'Traversal Using Relays around NAT Anycast', 'RFC 8155', true, ANYCAST),
  special('192.0.0.170/32', 'NAT64/DNS64 Discovery', 'RFC 8880 §7.1, RFC 7050 §2.2', false),
  special('192.0.0.171/32', 'NAT64/DNS64 Discovery', 'RFC 8880 §7.1, RFC 7050 §2.2', false),
  special('192.0.2.0/24', 'Documentation (TEST-NET-1)', 'RFC 5737', false),
  special('192.31.196.0/24', 'AS112-v4', 'RFC 7535', true, AS112),
  special('192.52.193.0/24', 'AMT', 'RFC 7450', true, 'multicast tunnelling relays'),
  special('192.88.99.0/24', 'Deprecated (6to4 Relay Anycast)', 'RFC 7526', null, 'deprecated relay anycast'),
  special('192.88.99.2/32', '6a44-relay anycast address', 'RFC 6751', false),
  special('192.168.0.0/16', 'Private-Use', 'RFC 1918', false),
  special('192.175.48.0/24', 'Direct Delegation AS112 Service', 'RFC 7534', true, AS112),
  special('198.18.0.0/15', 'Benchmarking', 'RFC 2544', false),
  special('198.51.100.0/24', 'Documentation (TEST-NET-2)', 'RFC 5737', false),
  special('203.0.113.0/24', 'Documentation (TEST-NET-3)', 'RFC 5737', false),
  space('224.0.0.0/4', 'Multicast', 'RFC 5771', null, 'multicast, not one host'),
  special('240.0.0.0/4', 'Reserved', 'RFC 1112 §4', false),
  special('255.255.255.255/32', 'Limited Broadcast', 'RFC 8190, RFC 919 §7', false),
];
