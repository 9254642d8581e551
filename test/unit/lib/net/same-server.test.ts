// Two load-test targets reach the same server when they share an address, whatever their names,
// schemes or ports; without addresses known on either side, only the same origin does.
import { describe, expect, it } from 'vitest';
import { sameServer } from '../../../../lib/net/same-server.ts';

describe('sameServer', () => {
  const site = { origin: 'https://shop.example', addresses: ['203.0.113.7', '2001:db8::7'] };

  it('holds for an address in common, by another name, scheme or port', () => {
    expect(sameServer(site, { origin: 'http://203.0.113.7:8080', addresses: ['203.0.113.7'] })).toBe(true);
    expect(sameServer(site, { origin: 'https://www.shop.example', addresses: ['198.51.100.1', '2001:DB8::7'] })).toBe(
      true,
    );
    // An IPv6 form that reaches the IPv4 address is that address: mapped (as a URL writes it, and dotted),
    // and the NAT64 well-known prefix; an IPv6 address however it is written.
    for (const address of ['::ffff:cb00:7107', '::ffff:203.0.113.7', '64:ff9b::cb00:7107', '64:ff9b::203.0.113.7'])
      expect(sameServer(site, { origin: `http://[${address}]`, addresses: [address] }), address).toBe(true);
    expect(sameServer(site, { origin: 'http://[2001:db8:0:0:0:0:0:7]', addresses: ['2001:db8:0::7'] })).toBe(true);
  });

  it('does not hold for other addresses, nor for unknown ones on another origin', () => {
    expect(sameServer(site, { origin: 'https://other.example', addresses: ['203.0.113.8'] })).toBe(false);
    // Other IPv6 forms carry the address, but do not reach it (IPv4-compatible, 6to4): not the same.
    expect(sameServer(site, { origin: 'http://[::cb00:7107]', addresses: ['::cb00:7107'] })).toBe(false);
    expect(sameServer(site, { origin: 'http://[2002:cb00:7107::]', addresses: ['2002:cb00:7107::'] })).toBe(false);
    expect(sameServer(site, { origin: 'https://other.example', addresses: null })).toBe(false);
    expect(sameServer({ origin: 'https://other.example', addresses: [] }, site)).toBe(false);
  });

  it('holds for the same origin whatever the addresses say', () => {
    expect(sameServer(site, { origin: 'https://shop.example', addresses: null })).toBe(true);
    expect(sameServer(site, { origin: 'https://shop.example', addresses: ['198.51.100.1'] })).toBe(true);
  });
});
