// Which addresses a user-chosen URL may reach: none that the IANA IPv4 and IPv6 Special-Purpose
// Address Registries set apart. The tables, their sources and the version followed are in
// special-addresses*.ts: private, loopback, link-local, shared (CGNAT), documentation, benchmarking,
// reserved, broadcast, multicast, unique-local, discard-only, protocol anycast, AS112, ORCHID, SRv6
// SIDs, and all IPv6 space outside global unicast 2000::/3.
// IPv6 forms that carry an IPv4 address are unwrapped and the IPv4 address is judged too, so a
// private IPv4 address cannot get past dressed as IPv6:
// - IPv4-mapped (::ffff:0:0/96) and the NAT64 well-known prefix (64:ff9b::/96) go where the IPv4
//   address goes: they are let through exactly when it is.
// - IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96, deprecated), 6to4 (2002::/16) and
//   Teredo (2001::/32: server, and client XOR 0xffffffff) are refused whatever they carry; the
//   refusal names the embedded address when that one is forbidden.
// - Local-use NAT64 (64:ff9b:1::/48) is refused whole: where the IPv4 address sits in it is up to
//   the operator.
// NETWORK_ALLOW (CIDRs) is the only way around it, for tests and private deployments. It matches the
// address as written: 127.0.0.0/8 opens 127.0.0.1, not ::ffff:127.0.0.1 (::ffff:127.0.0.0/104 would).
import { BlockList, isIP } from 'node:net';
import { parseCidr } from './cidr.ts';
import { SPECIAL_IPV4, type SpecialBlock } from './special-addresses.ts';
import { IPV4_EMBEDDINGS, type Ipv4Embedding } from './special-addresses-embeddings.ts';
import { SPECIAL_IPV6 } from './special-addresses-ipv6.ts';

type Family = 4 | 6;

const BITS: Record<Family, number> = { 4: 32, 6: 128 };

/** One list per family: Node's BlockList matches IPv4 addresses against IPv6 rules through their
 * mapped forms, so `::/96` in a shared list would catch every IPv4 address. */
function blockLists(cidrs: readonly string[]): Record<Family, BlockList> {
  const lists = { 4: new BlockList(), 6: new BlockList() };
  for (const cidr of cidrs) {
    const parsed = parseCidr(cidr);
    if (!parsed) throw new TypeError(`not a CIDR: ${cidr}`);
    lists[parsed.family].addSubnet(parsed.address, parsed.prefix, parsed.family === 4 ? 'ipv4' : 'ipv6');
  }
  return lists;
}

function ipv4Number(address: string): number {
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function ipv4Text(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
}

/** An address that isIP accepted, as a number (an IPv6 zone such as `%eth0` is dropped). */
function addressNumber(address: string, family: Family): bigint {
  if (family === 4) return BigInt(ipv4Number(address));
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /\d+\.\d+\.\d+\.\d+$/.exec(text)?.[0];
  if (dotted) {
    const n = ipv4Number(dotted);
    text = `${text.slice(0, -dotted.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

interface Row {
  /** The network's leading `prefix` bits. */
  network: bigint;
  prefix: number;
  block: SpecialBlock | Ipv4Embedding;
}

/** The table's rows of one family, most specific first, so the first match names the block. */
function rows(family: Family, blocks: readonly (SpecialBlock | Ipv4Embedding)[]): Row[] {
  return blocks
    .map((block) => {
      const cidr = parseCidr(block.cidr);
      if (!cidr || cidr.family !== family) throw new TypeError(`not an IPv${family} CIDR: ${block.cidr}`);
      return {
        network: addressNumber(cidr.address, family) >> BigInt(BITS[family] - cidr.prefix),
        prefix: cidr.prefix,
        block,
      };
    })
    .sort((a, b) => b.prefix - a.prefix);
}

const table: Record<Family, Row[]> = { 4: rows(4, SPECIAL_IPV4), 6: rows(6, [...SPECIAL_IPV6, ...IPV4_EMBEDDINGS]) };

function mostSpecific(family: Family, n: bigint): Row | undefined {
  return table[family].find((row) => n >> BigInt(BITS[family] - row.prefix) === row.network);
}

const named = (block: SpecialBlock) => `${block.name}, ${block.rfc}`;

/** Why the address must not be reached (its registry entry, or what its IPv6 form carries), or null. */
function reason(address: string, family: Family): string | null {
  const n = addressNumber(address, family);
  const row = mostSpecific(family, n);
  if (!row) return null;
  if (!('embedded' in row.block)) return named(row.block);
  const form = row.block;
  const carried = form.embedded.map(({ role, bit, xor = 0 }) => {
    const ipv4 = ipv4Text((Number((n >> BigInt(128 - bit - 32)) & 0xffffffffn) ^ xor) >>> 0);
    return { what: `${role}${ipv4}`, why: reason(ipv4, 4) };
  });
  const forbidden = carried.find((c) => c.why);
  if (forbidden) return `${form.name} ${forbidden.what}: ${forbidden.why}`;
  if (form.followsEmbedded) return null;
  return `${named(form)}: ${form.why}, refused whatever it carries (${carried.map((c) => c.what).join(', ')})`;
}

export interface AddressPolicy {
  /** Null when the address may be reached, else why not. */
  refusal(address: string): string | null;
  /** Whether the operator's list (NETWORK_ALLOW) names the address. */
  exempt(address: string): boolean;
}

export function createAddressPolicy(allow: readonly string[] = []): AddressPolicy {
  const allowed = blockLists(allow);
  const exempt = (address: string) => {
    const family = isIP(address) as 0 | Family;
    return family !== 0 && allowed[family].check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
  return {
    exempt,
    refusal(address) {
      const family = isIP(address) as 0 | Family;
      if (family === 0) return `${address} is not an IP address`;
      if (exempt(address)) return null;
      const why = reason(address, family);
      return why && `${address} is a private, loopback, link-local or reserved address (${why})`;
    },
  };
}

/**
 * One text per host an address reaches: an IPv6 form that goes where an IPv4 address goes (IPv4-mapped,
 * the NAT64 well-known prefix) as that IPv4 address, any other IPv6 address in full (eight groups of
 * four hexadecimal digits, no zone); null for what is not an address.
 */
export function addressKey(address: string): string | null {
  const family = isIP(address) as 0 | Family;
  if (family === 0) return null;
  if (family === 4) return ipv4Text(ipv4Number(address) >>> 0);
  const n = addressNumber(address, 6);
  const row = mostSpecific(6, n);
  if (row && 'embedded' in row.block && row.block.followsEmbedded) return ipv4Text(Number(n & 0xffffffffn));
  return n
    .toString(16)
    .padStart(32, '0')
    .replace(/(.{4})(?!$)/g, '$1:');
}
