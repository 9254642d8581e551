import { describe, expect, it } from 'vitest';
import { isoDate, parseRdap } from '../../../../domain/whois/parse.ts';
import { rdapDomain } from '../../../fixtures/rdap-server.ts';
import { FIXTURE_REGISTRAR } from '../../../fixtures/registry-names.ts';

describe('registration dates', () => {
  it.each([
    ['2001-02-03T04:05:06Z', '2001-02-03T04:05:06.000Z'],
    ['2001-02-03T04:05:06.5Z', '2001-02-03T04:05:06.500Z'],
    ['2018-03-12T21:44:25+01:00', '2018-03-12T20:44:25.000Z'],
    ['2001-02-03', '2001-02-03T00:00:00.000Z'],
    ['2001-02-03 04:05:06', '2001-02-03T04:05:06.000Z'],
    ['2001-02-03 04:05:06 UTC', '2001-02-03T04:05:06.000Z'],
    ['26-Aug-1996', '1996-08-26T00:00:00.000Z'],
    ['03-feb-2001 04:05:06', '2001-02-03T04:05:06.000Z'],
    ['2001.02.03', '2001-02-03T00:00:00.000Z'],
    ['2001/02/03 04:05:06', '2001-02-03T04:05:06.000Z'],
    ['03.02.2001', '2001-02-03T00:00:00.000Z'],
  ])('%s is %s', (input, iso) => expect(isoDate(input)).toBe(iso));

  it('is null for what is not a date', () => {
    expect(isoDate('before 1995')).toBeNull();
    // Longer than any date a registry writes (a run of spaces had made the reading quadratic).
    expect(isoDate(`2001-02-03${' '.repeat(200_000)}x UTC`)).toBeNull();
    expect(isoDate('')).toBeNull();
    expect(isoDate(undefined)).toBeNull();
  });
});

describe('RDAP answers', () => {
  it('reads the registrar, events, status and name servers of a domain object', () => {
    const servers = ['NS1.EXAMPLE.NET', 'ns2.example.net.', 'Ns3.Example.Net'];
    expect(parseRdap(rdapDomain('example.com', servers))).toEqual({
      domain_name: 'example.com',
      registrar: FIXTURE_REGISTRAR,
      status: ['client transfer prohibited', 'client delete prohibited'],
      creation_date: '2001-02-03T04:05:06.000Z',
      expiration_date: '2031-02-03T04:05:06.000Z',
      updated_date: '2025-06-07T08:09:10.000Z',
      // Lower case, without the root's dot.
      name_servers: ['ns1.example.net', 'ns2.example.net', 'ns3.example.net'],
      registrant: null,
    });
  });
});
