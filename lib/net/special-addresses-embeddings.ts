// The IPv6 forms that carry an IPv4 address, which the SSRF guard (address-policy.ts) unwraps; sources and
// versions as special-addresses.ts names them.
import type { SpecialBlock } from './special-addresses.ts';

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
 * of SPECIAL_IPV6 when it is the more specific match (::ffff:0:0/96 inside ::/8; ::/128 and ::1/128 stay
 * unspecified and loopback, not IPv4-compatible 0.0.0.0 and 0.0.0.1).
 * Not here: local-use NAT64 64:ff9b:1::/48 (refused whole in SPECIAL_IPV6: the operator picks the prefix length
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
