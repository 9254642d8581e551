import { describe, expect, it } from 'vitest';
import { ipv4ToNumber, ipv6ToBigInt, lookupAsn } from '../../../../domain/ip-info/asn-table.ts';

describe('ip-info building blocks', () => {
  it('turns addresses into numbers', () => {
    expect(ipv4ToNumber('1.0.0.0')).toBe(16777216);
    expect(ipv4ToNumber('255.255.255.255')).toBe(4294967295);
    expect(ipv6ToBigInt('::1')).toBe(1n);
    expect(ipv6ToBigInt('2001:db8::')).toBe(0x20010db8n << 96n);
    expect(ipv6ToBigInt('::ffff:1.2.3.4')).toBe((0xffffn << 32n) + 0x01020304n);
  });

  it('finds the autonomous system of public addresses in the shipped table', async () => {
    expect(await lookupAsn('1.1.1.1', 4)).toEqual({ asn: 13335, organization: 'Cloudflare, Inc.' });
    expect(await lookupAsn('2606:4700:4700::1111', 6)).toMatchObject({ asn: 13335 });
    expect(await lookupAsn('0.0.0.1', 4)).toBeNull();
  });
});
