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
    // An IPv4-mapped IPv6 address is its IPv4 address.
    expect(sameServer(site, { origin: 'http://[::ffff:203.0.113.7]', addresses: ['::ffff:203.0.113.7'] })).toBe(true);
  });

  it('does not hold for other addresses, nor for unknown ones on another origin', () => {
    expect(sameServer(site, { origin: 'https://other.example', addresses: ['203.0.113.8'] })).toBe(false);
    expect(sameServer(site, { origin: 'https://other.example', addresses: null })).toBe(false);
    expect(sameServer({ origin: 'https://other.example', addresses: [] }, site)).toBe(false);
  });

  it('holds for the same origin whatever the addresses say', () => {
    expect(sameServer(site, { origin: 'https://shop.example', addresses: null })).toBe(true);
    expect(sameServer(site, { origin: 'https://shop.example', addresses: ['198.51.100.1'] })).toBe(true);
  });
});
