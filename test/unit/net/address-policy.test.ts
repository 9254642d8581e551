import { describe, expect, it } from 'vitest';
import { createAddressPolicy } from '../../../lib/net/address-policy.ts';

describe('address policy', () => {
  const policy = createAddressPolicy();

  it.each([
    '0.0.0.0', '10.0.0.1', '10.255.255.255', '100.64.0.1', '127.0.0.1', '127.255.255.254', '169.254.169.254', '172.16.0.1',
    '172.31.255.255', '192.0.0.8', '192.0.2.1', '192.168.1.1', '198.18.0.1', '198.51.100.7', '203.0.113.9', '224.0.0.1',
    '239.255.255.250', '240.0.0.1', '255.255.255.255',
    '::', '::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::127.0.0.1', '64:ff9b::a00:1', '2001::1', '2001:db8::1', '2002:a00:1::1',
    'fc00::1', 'fd12:3456::1', 'fe80::1', 'fec0::1', 'ff02::1',
  ])('refuses %s', (address) => {
    expect(policy.refusal(address)).toMatch(/private, loopback, link-local or reserved/);
  });

  it.each(['1.1.1.1', '8.8.8.8', '93.184.215.14', '172.32.0.1', '172.15.255.255', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::1'])(
    'allows public %s',
    (address) => {
      expect(policy.refusal(address)).toBeNull();
    },
  );

  it('lets NETWORK_ALLOW open exactly the ranges it names', () => {
    const allowing = createAddressPolicy(['127.0.0.0/8', '::1/128']);
    expect(allowing.refusal('127.0.0.1')).toBeNull();
    expect(allowing.refusal('::1')).toBeNull();
    expect(allowing.refusal('10.0.0.1')).not.toBeNull();
    expect(allowing.refusal('::ffff:127.0.0.1')).not.toBeNull();
  });

  it('refuses what is not an IP address', () => {
    expect(policy.refusal('example.com')).toMatch(/not an IP address/);
  });
});
