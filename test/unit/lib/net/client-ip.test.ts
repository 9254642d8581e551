import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { addressKey, createClientIp } from '../../../../lib/net/client-ip.ts';

const req = (remoteAddress: string, xff?: string) =>
  ({
    socket: { remoteAddress },
    headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
  }) as unknown as IncomingMessage;

describe('client address', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    const clientIp = createClientIp([]);
    expect(clientIp(req('203.0.113.7', '1.2.3.4'))).toBe('203.0.113.7');
    expect(clientIp(req('::ffff:203.0.113.7'))).toBe('203.0.113.7');
  });

  it('is the nearest untrusted X-Forwarded-For entry behind trusted proxies, never a forged earlier one', () => {
    const clientIp = createClientIp(['10.0.0.0/8']);
    expect(clientIp(req('10.0.0.2', '198.51.100.9'))).toBe('198.51.100.9');
    expect(clientIp(req('10.0.0.2', '6.6.6.6, 198.51.100.9, 10.0.0.5'))).toBe('198.51.100.9');
    expect(clientIp(req('10.0.0.2'))).toBe('10.0.0.2');
    expect(clientIp(req('192.0.2.1', '6.6.6.6'))).toBe('192.0.2.1');
    // An entry that is not an address (a proxy's ip:port, say) ends the walk: what stands before it is the client's to
    // forge.
    expect(clientIp(req('10.0.0.2', '6.6.6.6, 198.51.100.9:4711'))).toBe('10.0.0.2');
  });
});

describe('addressKey (what sign-in and registration limits count against)', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('takes an IPv6 address as its /64, however it is written', () => {
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('2001:db8:1:2::')).toBe('2001:db8:1:2::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(addressKey('2001:db8:1:2:3:4:192.0.2.1')).toBe('2001:db8:1:2::/64');
  });

  it('leaves anything else alone', () => {
    expect(addressKey('')).toBe('');
    expect(addressKey('not an address')).toBe('not an address');
  });
});
