import { describe, expect, it } from 'vitest';
import { mentionsReserved, parseWhois, whoisReferral, whoisVerdict } from '../../../../domain/whois/whois-text.ts';

// A thick gTLD answer in ICANN format, which also names the registrar's WHOIS server.
const ICANN_ANSWER = [
  'Domain Name: EXAMPLE.COM',
  'Registrar WHOIS Server: whois.registrar.example',
  'Updated Date: 2024-08-14T07:01:34Z',
  'Creation Date: 1995-08-14T04:00:00Z',
  'Registry Expiry Date: 2025-08-13T04:00:00Z',
  'Registrar: RESERVED-Internet Assigned Numbers Authority',
  'Domain Status: clientDeleteProhibited https://icann.org/epp#clientDeleteProhibited',
  'Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited',
  'Name Server: A.IANA-SERVERS.NET',
  'Name Server: B.IANA-SERVERS.NET',
  'URL of the ICANN Whois Inaccuracy Complaint Form: https://www.icann.org/wicf/',
  '>>> Last update of whois database: 2024-11-22T00:00:00Z <<<',
].join('\r\n');

describe('WHOIS answers', () => {
  // A registered name's answer in each layout registries write, and the whole record read from it.
  it.each([
    {
      layout: 'a thick gTLD answer in ICANN format',
      text: ICANN_ANSWER,
      record: {
        domain_name: 'example.com',
        registrar: 'RESERVED-Internet Assigned Numbers Authority',
        creation_date: '1995-08-14T04:00:00.000Z',
        expiration_date: '2025-08-13T04:00:00.000Z',
        updated_date: '2024-08-14T07:01:34.000Z',
        status: ['clientDeleteProhibited', 'clientTransferProhibited'],
        name_servers: ['a.iana-servers.net', 'b.iana-servers.net'],
        registrant: null,
      },
    },
    {
      layout: 'a block-style answer (values on indented lines under their heading)',
      text: `
    Domain name:
        example.co.uk

    Registrar:
        Example Ltd [Tag = EXAMPLE]
        URL: http://www.example.com

    Relevant dates:
        Registered on: 26-Aug-1996
        Expiry date:  26-Aug-2027
        Last updated:  25-Jul-2025

    Name servers:
        ns1.example.net
        ns2.example.net      192.0.2.1
`,
      record: {
        domain_name: 'example.co.uk',
        registrar: 'Example Ltd [Tag = EXAMPLE]',
        creation_date: '1996-08-26T00:00:00.000Z',
        expiration_date: '2027-08-26T00:00:00.000Z',
        updated_date: '2025-07-25T00:00:00.000Z',
        status: [],
        name_servers: ['ns1.example.net', 'ns2.example.net'],
        registrant: null,
      },
    },
  ])('reads $layout', ({ text, record }) => {
    expect(whoisVerdict(text)).toBe('registered');
    expect(parseWhois(text)).toEqual(record);
  });

  it('reads lower-case key answers (.de, .ru style)', () => {
    expect(
      parseWhois(
        'domain: EXAMPLE.RU\nnserver: ns1.example.ru.\nstate: REGISTERED, DELEGATED\ncreated: ' +
          '2000-01-01T00:00:00Z\npaid-till: 2027-01-01T00:00:00Z\n',
      ),
    ).toMatchObject({
      domain_name: 'example.ru',
      name_servers: ['ns1.example.ru'],
      status: ['REGISTERED, DELEGATED'],
      creation_date: '2000-01-01T00:00:00.000Z',
      expiration_date: '2027-01-01T00:00:00.000Z',
    });
    expect(whoisVerdict('Domain: example.de\nStatus: free\n')).toBe('available');
    expect(
      parseWhois('Domain: example.de\nNserver: ns1.example.de\nStatus: connect\nChanged: 2018-03-12T21:44:25+01:00\n'),
    ).toMatchObject({ status: ['connect'], updated_date: '2018-03-12T20:44:25.000Z' });
  });

  // The answers of each verdict, as registries word them.
  const verdicts = {
    available: [
      'No match for "EXAMPLE-FREE.COM".',
      'NOT FOUND',
      '%% No entries found for the selected source(s).',
      'The queried object does not exist: DOMAIN NOT FOUND',
      'No Data Found',
      'Domain example.xyz is available for registration',
      'Domain example.xyz is reserved and not available for registration',
    ],
    rate_limited: [
      'WHOIS LIMIT EXCEEDED - SEE WWW.PIR.ORG/WHOIS FOR DETAILS',
      'Your connection limit exceeded. Please slow down and try again later.',
      'No match for "X.COM".\r\nDaily query quota reached for your address.',
      'Query rate limited: please wait',
      'You have exceeded your query limit',
      'Too many connections from your IP',
    ],
    unclear: ['', 'Something unexpected'],
  };
  it.each(Object.entries(verdicts).flatMap(([verdict, texts]) => texts.map((text) => [text, verdict])))(
    '%s -> %s',
    (text, verdict) => expect(whoisVerdict(text)).toBe(verdict),
  );

  it('reads a refusal in a short answer or its first lines, not in the terms of use after a real answer', () => {
    const terms = Array.from(
      { length: 12 },
      (_, i) =>
        `TERMS OF USE ${i}: queries are subject to a daily quota and may be rate limited; if access is ` +
        `denied, try again later.`,
    ).join('\n');
    expect(
      whoisVerdict(
        `No match for "FREE-NAME.ORG".\n>>> Last update of WHOIS database: 2026-11-23T00:00:00Z <<<\n\n${terms}`,
      ),
    ).toBe('available');
    expect(whoisVerdict(`WHOIS LIMIT EXCEEDED - SEE WWW.PIR.ORG/WHOIS FOR DETAILS\n\n${terms}`)).toBe('rate_limited');
  });

  it('dates win over boilerplate that mentions availability', () => {
    expect(
      whoisVerdict(
        'Creation Date: 2001-01-01\nNOTICE: names not found are available for registration at your registrar\n',
      ),
    ).toBe('registered');
  });

  it('tells "reserved" statuses from legal boilerplate', () => {
    expect(mentionsReserved('Domain Status: reserved')).toBe(true);
    expect(mentionsReserved('This name is reserved by the registry.')).toBe(true);
    expect(mentionsReserved('No match for "X.COM".\n(c) 2026 Registry. All rights reserved.')).toBe(false);
  });

  it('finds referrals in the forms servers write them', () => {
    expect(whoisReferral('refer:        whois.verisign-grs.com\n\ndomain: COM')).toEqual({
      kind: 'refer',
      server: 'whois.verisign-grs.com',
    });
    expect(whoisReferral(ICANN_ANSWER)).toEqual({ kind: 'registrar', server: 'whois.registrar.example' });
    expect(whoisReferral('Registrar WHOIS Server: whois://whois.example.net:4343/')).toEqual({
      kind: 'registrar',
      server: 'whois.example.net:4343',
    });
    expect(whoisReferral('Registrar WHOIS Server: http://www.example.net/whois')).toBeNull();
    expect(whoisReferral('Domain Name: X.COM')).toBeNull();
  });
});
