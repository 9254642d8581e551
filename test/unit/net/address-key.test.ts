import { describe, expect, it } from 'vitest';
import { addressKey } from '../../../lib/net/client-ip.ts';

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
