import { domainToASCII } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoDate, parseRdap } from '../../domain/whois/parse.ts';
import { mentionsReserved, parseWhois, whoisReferral, whoisVerdict } from '../../domain/whois/whois-text.ts';
import { convert, priceOf, usdPrice } from '../../domain/whois/pricing.ts';
import { createDomainLookup } from '../../domain/whois/lookup.ts';
import { bootstrapBase } from '../../domain/whois/rdap.ts';
import { registrableDomain } from '../../domain/whois/registrable.ts';
import { reservedReason } from '../../domain/whois/reserved.ts';
import { registryWhoisServer, whoisLookup } from '../../domain/whois/whois-client.ts';
import type { LookupMode } from '../../lib/jobs/domain-check.ts';
import { MemoryKvStore } from '../../lib/kv/index.ts';
import { rdapDomain } from '../fixtures/rdap-server.ts';
import { FIXTURE_REGISTRAR } from '../fixtures/registry-names.ts';
import { startWhoisServers, type WhoisFixture } from '../fixtures/whois-server.ts';

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
    expect(isoDate('')).toBeNull();
    expect(isoDate(undefined)).toBeNull();
  });
});

describe('WHOIS answers', () => {
  it('reads a thick gTLD answer in ICANN format', () => {
    const text = [
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
    expect(whoisVerdict(text)).toBe('registered');
    expect(parseWhois(text)).toEqual({
      domain_name: 'example.com',
      registrar: 'RESERVED-Internet Assigned Numbers Authority',
      creation_date: '1995-08-14T04:00:00.000Z',
      expiration_date: '2025-08-13T04:00:00.000Z',
      updated_date: '2024-08-14T07:01:34.000Z',
      status: ['clientDeleteProhibited', 'clientTransferProhibited'],
      name_servers: ['a.iana-servers.net', 'b.iana-servers.net'],
      registrant: null,
    });
    expect(whoisReferral(text)).toEqual({ kind: 'registrar', server: 'whois.registrar.example' });
  });

  it('reads a block-style answer (values on indented lines under their heading)', () => {
    const text = `
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
`;
    expect(whoisVerdict(text)).toBe('registered');
    expect(parseWhois(text)).toMatchObject({
      domain_name: 'example.co.uk',
      registrar: 'Example Ltd [Tag = EXAMPLE]',
      creation_date: '1996-08-26T00:00:00.000Z',
      expiration_date: '2027-08-26T00:00:00.000Z',
      updated_date: '2025-07-25T00:00:00.000Z',
      name_servers: ['ns1.example.net', 'ns2.example.net'],
    });
  });

  it('reads lower-case key answers (.de, .ru style)', () => {
    expect(
      parseWhois(
        'domain: EXAMPLE.RU\nnserver: ns1.example.ru.\nstate: REGISTERED, DELEGATED\ncreated: 2000-01-01T00:00:00Z\npaid-till: 2027-01-01T00:00:00Z\n',
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

  it.each([
    ['No match for "EXAMPLE-FREE.COM".', 'available'],
    ['NOT FOUND', 'available'],
    ['%% No entries found for the selected source(s).', 'available'],
    ['The queried object does not exist: DOMAIN NOT FOUND', 'available'],
    ['No Data Found', 'available'],
    ['Domain example.xyz is available for registration', 'available'],
    ['Domain example.xyz is reserved and not available for registration', 'available'],
    ['WHOIS LIMIT EXCEEDED - SEE WWW.PIR.ORG/WHOIS FOR DETAILS', 'rate_limited'],
    ['Your connection limit exceeded. Please slow down and try again later.', 'rate_limited'],
    ['No match for "X.COM".\r\nDaily query quota reached for your address.', 'rate_limited'],
    ['Query rate limited: please wait', 'rate_limited'],
    ['You have exceeded your query limit', 'rate_limited'],
    ['Too many connections from your IP', 'rate_limited'],
    ['', 'unclear'],
    ['Something unexpected', 'unclear'],
  ])('%s -> %s', (text, verdict) => expect(whoisVerdict(text)).toBe(verdict));

  it('reads a refusal in a short answer or its first lines, not in the terms of use after a real answer', () => {
    const terms = Array.from(
      { length: 12 },
      (_, i) =>
        `TERMS OF USE ${i}: queries are subject to a daily quota and may be rate limited; if access is denied, try again later.`,
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
    expect(whoisReferral('Registrar WHOIS Server: whois://whois.example.net:4343/')).toEqual({
      kind: 'registrar',
      server: 'whois.example.net:4343',
    });
    expect(whoisReferral('Registrar WHOIS Server: http://www.example.net/whois')).toBeNull();
    expect(whoisReferral('Domain Name: X.COM')).toBeNull();
  });
});

describe('RDAP answers', () => {
  it('reads the registrar, events, status and name servers of a domain object', () => {
    expect(parseRdap(rdapDomain('example.com', ['NS1.EXAMPLE.NET', 'ns2.example.net.']))).toEqual({
      domain_name: 'example.com',
      registrar: FIXTURE_REGISTRAR,
      creation_date: '2001-02-03T04:05:06.000Z',
      expiration_date: '2031-02-03T04:05:06.000Z',
      updated_date: '2025-06-07T08:09:10.000Z',
      status: ['client transfer prohibited', 'client delete prohibited'],
      name_servers: ['ns1.example.net', 'ns2.example.net'],
      registrant: null,
    });
  });

  it('finds the RDAP base of a TLD in the shipped IANA bootstrap, and none for a TLD without RDAP', () => {
    expect(bootstrapBase('com')).toMatch(/^https:\/\/rdap\.verisign\.com\/com\/v1\/?$/);
    expect(bootstrapBase('nosuchtld')).toBeNull();
    expect(registryWhoisServer('com')).toBe('whois.verisign-grs.com');
  });
});

describe('registrable domains', () => {
  it('finds the name under its public suffix, in ASCII', () => {
    expect(registrableDomain('www.Example.co.uk.')).toEqual({
      domain: 'example.co.uk',
      suffix: 'co.uk',
      tld: 'uk',
      label: 'example',
    });
    expect(registrableDomain('bücher.de')).toEqual({
      domain: 'xn--bcher-kva.de',
      suffix: 'de',
      tld: 'de',
      label: 'xn--bcher-kva',
    });
    expect(registrableDomain('a.b.foo.test')).toMatchObject({ domain: 'foo.test', tld: 'test' });
  });

  it('refuses a bare suffix and a name under no public suffix, naming the field', () => {
    expect(() => registrableDomain('co.uk', 'domains')).toThrow(/domains "co\.uk" is a public suffix/);
    expect(() => registrableDomain('example.nosuchtld')).toThrow(/not under a known public suffix/);
  });
});

describe('reservation rules', () => {
  const reason = (name: string) => reservedReason(registrableDomain(name));
  it('applies RFC 6761 and Specification 5 as documented', () => {
    expect(reason('foo.localhost')).toMatch(/RFC 6761/);
    expect(reason('example.org')).toMatch(/RFC 6761/);
    expect(reason('example.shop')).toMatch(/§1/);
    expect(reason('ab.shop')).toMatch(/§2/);
    expect(reason('whois.shop')).toMatch(/§3\.1/);
    expect(reason('olympic.shop')).toMatch(/§5/);
    // Country names, some lists in U-labels, looked up by their A-label.
    expect(reason('germany.shop')).toMatch(/§4/);
    expect(reason(`${domainToASCII('españa')}.shop`)).toMatch(/§4/);
    expect(reason('ab.de')).toBeNull(); // a country-code TLD
    expect(reason('ab.com')).toBeNull(); // .com predates Specification 5
    expect(reason('ab.co.uk')).toBeNull(); // a second-level suffix
    expect(reason('abc.shop')).toBeNull();
  });
});

describe('prices', () => {
  it('come from the shipped lists in USD and convert with the ECB rates', () => {
    expect(usdPrice('com')).toEqual({ registration: 10.88, renewal: 10.88, source: 'dynadot' });
    expect(usdPrice('nosuchsuffix')).toBeNull();
    // USD 1 = 1/1.1684 EUR, 0.87058/1.1684 GBP, 182.x/1.1684 JPY (ECB, 2026-04-13).
    expect(convert(1.1684, 'EUR')).toBe(1);
    expect(convert(1.1684, 'GBP')).toBe(0.87);
    expect(Number.isInteger(convert(10, 'JPY'))).toBe(true);
    expect(priceOf('com', 'USD')).toEqual({ registration: 10.88, renewal: 10.88, currency: 'USD' });
  });

  it('fill suffixes the newer list lacks from the older one', () => {
    const porkbunOnly = usdPrice('org.mx');
    expect(porkbunOnly?.source).toBe('porkbun');
  });
});

describe('the WHOIS referral chain and the address policy', () => {
  let servers: WhoisFixture;
  beforeAll(async () => {
    servers = await startWhoisServers();
  });
  afterAll(() => servers.close());

  it('follows root -> registry -> registrar when the policy allows loopback', async () => {
    const answer = await whoisLookup('whois-taken-chain.com', 'com', {
      server: servers.root,
      allow: ['127.0.0.1/32'],
      timeoutMs: 2000,
    });
    expect(answer).toMatchObject({
      verdict: 'registered',
      server: servers.registry,
      parsed: { registrar: FIXTURE_REGISTRAR },
    });
    expect(servers.queries.registrar).toContain('whois-taken-chain.com');
  });

  it('refuses a referral to a forbidden address without connecting', async () => {
    const before = servers.queries.registry.length;
    const answer = await whoisLookup('whois-taken-refused.com', 'com', {
      server: servers.root,
      allow: [],
      timeoutMs: 2000,
    });
    expect(answer.verdict).toBe('error');
    expect(answer.reason).toMatch(/not allowed: 127\.0\.0\.1 is a private, loopback/);
    expect(servers.queries.registry.length).toBe(before);
  });

  it('keeps the registry answer when the registrar it names is refused', async () => {
    const answer = await whoisLookup('whois-taken-registrar.com', 'com', {
      server: servers.registry,
      allow: [],
      timeoutMs: 2000,
    });
    expect(answer).toMatchObject({ verdict: 'registered', server: servers.registry });
    expect(answer.parsed.registrar).toBeNull(); // only the registrar's answer names it
    expect(servers.queries.registrar).not.toContain('whois-taken-registrar.com');
  });

  it('gives up on a silent server after the time limit', async () => {
    const started = performance.now();
    const answer = await whoisLookup('slow-one.com', 'com', { server: servers.registry, allow: [], timeoutMs: 300 });
    expect(answer.verdict).toBe('error');
    expect(answer.reason).toMatch(/did not answer within 300 ms/);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('a lookup when no registry answers', () => {
  // RDAP, WHOIS and DNS all on a loopback port nobody listens on: every question is refused at once.
  const lookup = createDomainLookup({
    kv: new MemoryKvStore(),
    rdapBaseUrl: 'http://127.0.0.1:9/',
    whoisServer: '127.0.0.1:9',
    dnsServers: ['127.0.0.1:9'],
    allow: ['127.0.0.1/32'],
    timeoutMs: 500,
  });
  const check = async (domain: string, mode: LookupMode = 'full') =>
    (await lookup.check(lookup.registrable(domain), mode)).check;

  it('answers RFC 6761 names, example.com included, by rule without asking anyone', async () => {
    for (const domain of ['example.com', 'example.net', 'www.example.org', 'anything.test']) {
      const answer = await check(domain);
      expect(answer, domain).toMatchObject({
        evidence: 'rule',
        is_reserved: true,
        available: false,
        confidence: 'high',
        problems: [],
      });
      expect(answer.whois_server).toMatch(/^none \(RFC 6761/);
      // IANA holds example.com/.net/.org (registered); a special-use TLD has no registry at all.
      expect(answer.is_registered, domain).toBe(!domain.endsWith('.test'));
    }
  });

  it('leaves availability unknown (null, low) whatever the name, a Specification 5 one marked reserved', async () => {
    const plain = await check('plain-name.com');
    expect(plain).toMatchObject({ available: null, is_registered: null, confidence: 'low', is_reserved: false });
    expect(plain.problems.length).toBeGreaterThan(0);
    const spec5 = await check('nic.shop');
    expect(spec5).toMatchObject({ available: null, is_registered: null, confidence: 'low', is_reserved: true });
    expect(spec5.reserved_reason).toMatch(/Specification 5/);
    expect(await check('nic.shop', 'fast')).toMatchObject({
      available: null,
      is_registered: null,
      confidence: 'low',
      is_reserved: true,
    });
  });
});
