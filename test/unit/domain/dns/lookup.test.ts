import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DNS_TYPES } from '../../../../contract/lookups.ts';
import { createDnsLookup, type DnsLookup } from '../../../../domain/dns/lookup.ts';
import { startDnsServer, ZONE_SOA, type DnsFixture } from '../../../fixtures/dns-server.ts';

describe('DNS lookup against a loopback DNS server', () => {
  let server: DnsFixture;
  let lookup: DnsLookup;
  beforeAll(async () => {
    server = await startDnsServer();
    lookup = createDnsLookup({ servers: [server.address], timeoutMs: 500 });
  });
  afterAll(() => server.close());

  it('answers every type, one query per type (never ANY)', async () => {
    server.queries.length = 0;
    const records = await lookup('example.test', DNS_TYPES);
    expect(records.A?.sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    expect(records.AAAA).toEqual(['2001:db8::10']);
    expect(records.MX).toEqual([
      { priority: 10, host: 'mx1.example.test' },
      { priority: 20, host: 'mx2.example.test' },
    ]);
    expect(records.NS?.sort()).toEqual(['ns1.example.test', 'ns2.example.test']);
    expect(records.TXT?.sort()).toEqual(['first part, second part', 'v=spf1 -all']);
    expect(records.CNAME).toEqual([]);
    expect(records.SOA).toEqual({
      primary_ns: ZONE_SOA.mname,
      hostmaster: ZONE_SOA.rname,
      serial: ZONE_SOA.serial,
      refresh: ZONE_SOA.refresh,
      retry: ZONE_SOA.retry,
      expire: ZONE_SOA.expire,
      minimum_ttl: ZONE_SOA.minimum,
    });
    expect(server.queries.map((q) => q.type).sort()).toEqual([...DNS_TYPES].sort());
  });

  it('answers a CNAME', async () => {
    expect(await lookup('www.example.test', ['CNAME'])).toEqual({ CNAME: ['example.test'] });
  });

  it('answers no-data with empty records and NXDOMAIN with 404', async () => {
    expect(await lookup('empty.example.test', ['A', 'MX', 'SOA'])).toEqual({ A: [], MX: [], SOA: null });
    await expect(lookup('missing.example.test', DNS_TYPES)).rejects.toMatchObject({
      status: 404,
      message: 'missing.example.test does not exist (NXDOMAIN)',
    });
  });

  it('answers 504 when the DNS server stays silent', async () => {
    const silentSocket = dgram.createSocket('udp4');
    await new Promise<void>((r) => silentSocket.bind(0, '127.0.0.1', () => r()));
    const silent = createDnsLookup({ servers: [`127.0.0.1:${silentSocket.address().port}`], timeoutMs: 200 });
    await expect(silent('example.test', ['A'])).rejects.toMatchObject({ status: 504 });
    silentSocket.close();
  });
});
