import { describe, expect, it } from 'vitest';
import { call, expectErrorShape, newAccount, targets } from '../support/client.ts';

describe.each(targets())('GET /api/v1/network/ip-info ($name)', (target) => {
  const account = newAccount(target);
  const get = async (query: string) =>
    call(target, 'GET', `/api/v1/network/ip-info${query}`, { key: (await account).key });

  it('answers a public address from the offline databases, with the reverse name from DNS', async () => {
    const reply = await get('?ip=1.1.1.1');
    expect(reply.status).toBe(200);
    expect(reply.body.success).toBe(true);
    expect(reply.body.ip).toBe('1.1.1.1');
    const data = reply.body.data;
    expect(data).toMatchObject({
      country_code: 'AU',
      country: 'Australia',
      asn: 13335,
      isp: 'Cloudflare, Inc.',
      organization: 'Cloudflare, Inc.',
      reverse_dns: 'one.one.one.one',
      ip_version: 4,
      address_class: 'public',
    });
    for (const field of ['country', 'country_code', 'region', 'city', 'isp', 'organization', 'timezone'])
      expect(typeof data[field], field).toBe('string');
    for (const field of ['latitude', 'longitude']) expect(typeof data[field], field).toBe('number');
    expect(data.timezone).toMatch(/^[A-Za-z]+\/[A-Za-z_]+/);
  });

  it('answers a private address with its class and no location', async () => {
    const reply = await get('?ip=192.168.10.20');
    expect(reply.body.data).toMatchObject({
      address_class: 'private',
      country: null,
      city: null,
      asn: null,
      reverse_dns: null,
      ip_version: 4,
    });
  });

  it("defaults to the caller's address", async () => {
    const reply = await get('');
    expect(reply.body.ip).toBe('127.0.0.1');
    expect(reply.body.data.address_class).toBe('loopback');
  });

  it('answers 400 naming the field for something that is not an IP address', async () => {
    for (const ip of ['999.1.1.1', 'example.com', '1.2.3']) {
      const reply = await get(`?ip=${ip}`);
      expectErrorShape(reply, 400);
      expect(reply.body.message).toMatch(/^ip: must be an IPv4 or IPv6 address/);
    }
  });
});
