import { describe, expect, it } from 'vitest';
import { call, expectErrorShape, newAccount, targets } from '../support/client.ts';

describe.each(targets())('GET /api/v1/network/dns-lookup ($name)', (target) => {
  const get = async (query: string) =>
    call(target, 'GET', `/api/v1/network/dns-lookup?${query}`, { key: (await account).key });
  const account = newAccount(target);

  it('answers every record type for ALL, in the shapes of the spec', async () => {
    const reply = await get('domain=Example.Test.');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: true, domain: 'example.test', type: 'ALL' });
    const { records } = reply.body;
    expect(Object.keys(records).sort()).toEqual(['A', 'AAAA', 'CNAME', 'MX', 'NS', 'SOA', 'TXT']);
    expect(records.A.sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    expect(records.MX[0]).toEqual({ priority: 10, host: 'mx1.example.test' });
    expect(records.TXT).toContain('first part, second part');
    expect(records.SOA).toMatchObject({ primary_ns: 'ns1.example.test', serial: 2026112201 });
  });

  it('answers one type, named in any case', async () => {
    const reply = await get('domain=example.test&type=mx');
    expect(reply.body.records).toEqual({
      MX: [
        { priority: 10, host: 'mx1.example.test' },
        { priority: 20, host: 'mx2.example.test' },
      ],
    });
    expect((await get('domain=www.example.test&type=CNAME')).body.records).toEqual({ CNAME: ['example.test'] });
  });

  it('answers no-data with empty records and an unknown name with 404', async () => {
    expect((await get('domain=empty.example.test&type=A')).body.records).toEqual({ A: [] });
    const missing = await get(`domain=${encodeURIComponent('bücher.example.test')}`);
    expectErrorShape(missing, 404);
    expect(missing.body.message).toBe('xn--bcher-kva.example.test does not exist (NXDOMAIN)');
  });

  it('answers 400 naming the field for bad input', async () => {
    for (const [query, pattern] of [
      ['', /domain is required/],
      ['domain=', /domain is required/],
      ['domain=https://example.test/', /domain must be a domain name, not a URL/],
      ['domain=localhost', /needs at least two labels/],
      ['domain=-bad.example.test', /label "-bad"/],
      [`domain=${'a'.repeat(64)}.test`, /1 to 63 characters/],
      ['domain=example.test&type=SPF', /type: must be one of ALL, A, AAAA, MX, NS, TXT, CNAME, SOA/],
      // Numbers and addresses are not domains (the URL standard would read them as IPv4 addresses).
      ['domain=0x7f.1', /^domain must be a domain name, not an IP address or a number/],
      ['domain=8', /^domain must be a domain name, not an IP address or a number/],
      ['domain=192.0.2.1', /^domain must be a domain name, not an IP address or a number/],
      ['domain=%5B%3A%3A1%5D', /^domain must be a domain name, not an IP address or a number/],
    ] as const) {
      const reply = await get(query);
      expectErrorShape(reply, 400);
      expect(reply.body.message, query).toMatch(pattern);
    }
  });
});
