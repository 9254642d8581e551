import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { parseCidr } from './cidr.ts';

/** `::ffff:192.0.2.1` is the IPv4 address 192.0.2.1 seen through a dual-stack socket. */
export function plainIp(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** Whether an address is one of the trusted proxies' (TRUSTED_PROXIES). */
export function trustedProxyCheck(trustedProxies: readonly string[]): (ip: string) => boolean {
  const trusted = new BlockList();
  for (const cidr of trustedProxies) {
    const c = parseCidr(cidr)!;
    trusted.addSubnet(c.address, c.prefix, c.family === 4 ? 'ipv4' : 'ipv6');
  }
  return (ip) => isIP(ip) !== 0 && trusted.check(ip, isIP(ip) === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client's address: the socket's peer, unless that peer is a trusted proxy; then the
 * X-Forwarded-For entry nearest to us that is not itself a trusted proxy. Entries added by anything
 * before the first untrusted hop are the client's to forge, so they are never believed.
 */
export function createClientIp(trustedProxies: readonly string[]): (req: IncomingMessage) => string {
  const isTrusted = trustedProxyCheck(trustedProxies);
  // No proxies to trust (the default): the peer, without a list lookup on the capture hot path.
  if (trustedProxies.length === 0) return (req) => plainIp(req.socket.remoteAddress ?? '');
  return (req) => {
    let ip = plainIp(req.socket.remoteAddress ?? '');
    if (!isTrusted(ip)) return ip;
    const forwarded = String(req.headers['x-forwarded-for'] ?? '')
      .split(',')
      .map((s) => plainIp(s.trim()));
    while (forwarded.length > 0 && isTrusted(ip)) {
      const next = forwarded.pop()!;
      if (!isIP(next)) break; // not an address: stop rather than believe what stands before it
      ip = next;
    }
    return ip;
  };
}

/**
 * The address a limit counts against: an IPv4 address as it is, an IPv6 address as its /64 (one host
 * or home usually has a whole /64, so counting single IPv6 addresses would give it 2^64 allowances).
 */
export function addressKey(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const [address] = ip.split('%'); // no zone index
  const [head = '', tail] = address!.split('::');
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  let before = groups(head);
  const after = groups(tail);
  const hasV4 = (tail === undefined ? before : after).at(-1)?.includes('.') ?? false;
  const count = before.length + after.length + (hasV4 ? 1 : 0); // a dotted IPv4 tail is two groups
  if (tail !== undefined) before = [...before, ...Array<string>(Math.max(0, 8 - count)).fill('0')];
  return `${[...before, ...after]
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
