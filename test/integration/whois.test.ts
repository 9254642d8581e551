// GET /api/v1/network/whois against loopback registries: RDAP (RDAP_BASE_URL), a WHOIS chain with
// referral (WHOIS_SERVER = an IANA-like root), and DNS (DNS_SERVERS). LOOKUP_TIMEOUT_MS is 1000 here.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  FIXTURE_CREATED,
  FIXTURE_EXPIRES,
  FIXTURE_NAME_SERVERS,
  FIXTURE_REGISTRAR,
  FIXTURE_UPDATED,
} from '../fixtures/registry-names.ts';
import { call, expectErrorShape, newAccount, targets } from '../support/client.ts';

/** A name no earlier test (or cache) has seen, with the fixture behaviour of `prefix`. */
const fresh = (prefix: string, tld = 'com') => `${prefix}-${randomBytes(5).toString('hex')}.${tld}`;

describe.each(targets())('GET /api/v1/network/whois ($name)', (target) => {
  const account = newAccount(target);
  const whois = async (query: string) =>
    call(target, 'GET', `/api/v1/network/whois?${query}`, { key: (await account).key });

  it('full mode: a registered name from RDAP, with its record parsed and no meta', async () => {
    const domain = fresh('taken');
    const reply = await whois(`domain=${domain}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      success: true,
      domain,
      available: false,
      is_registered: true,
      is_premium: false,
      is_reserved: false,
      premium_type: null,
      availability_confidence: 'high',
      evidence: 'rdap',
      parsed_data: {
        domain_name: domain,
        registrar: FIXTURE_REGISTRAR,
        creation_date: new Date(FIXTURE_CREATED).toISOString(),
        expiration_date: new Date(FIXTURE_EXPIRES).toISOString(),
        updated_date: new Date(FIXTURE_UPDATED).toISOString(),
        status: ['client transfer prohibited', 'client delete prohibited'],
        name_servers: FIXTURE_NAME_SERVERS,
        registrant: null,
      },
      pricing: {
        available: false,
        is_premium: false,
        registration_price: 10.88,
        renewal_price: 10.88,
        currency: 'USD',
      },
    });
    expect(reply.body.whois_server).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(JSON.parse(reply.body.raw_data).ldhName).toBe(domain.toUpperCase());
    expect(reply.body).not.toHaveProperty('meta');
    expect(Number.isInteger(reply.body.execution_time_ms)).toBe(true);
  });

  it('full mode: an RDAP 404 is an available name, priced in the asked currency', async () => {
    const domain = fresh('free');
    const reply = await whois(`domain=${domain}&currency=eur`);
    expect(reply.body).toMatchObject({
      domain,
      available: true,
      is_registered: false,
      availability_confidence: 'high',
      parsed_data: { status: [], name_servers: [] },
    });
    // 10.88 USD at the shipped ECB rate (1 EUR = 1.1684 USD).
    expect(reply.body.pricing).toEqual({
      available: true,
      is_premium: false,
      registration_price: 9.31,
      renewal_price: 9.31,
      currency: 'EUR',
    });
  });

  it('full mode: RDAP failing, the WHOIS chain root -> registry -> registrar answers', async () => {
    const domain = fresh('whois-taken');
    const reply = await whois(`domain=${domain}&include_pricing=false`);
    expect(reply.body).toMatchObject({
      available: false,
      is_registered: true,
      availability_confidence: 'high',
      evidence: 'whois',
      pricing: null,
      parsed_data: {
        domain_name: domain,
        registrar: FIXTURE_REGISTRAR,
        creation_date: new Date(FIXTURE_CREATED).toISOString(),
        expiration_date: new Date(FIXTURE_EXPIRES).toISOString(),
        status: ['clientDeleteProhibited', 'clientTransferProhibited'],
        name_servers: FIXTURE_NAME_SERVERS,
      },
    });
    // The registry answered (the root only referred); its text, then the registrar's, are the raw data.
    expect(reply.body.whois_server).not.toBe(target.env.WHOIS_SERVER);
    expect(reply.body.raw_data).toContain(`Domain Name: ${domain.toUpperCase()}`);
    expect(reply.body.raw_data).toContain('Registrant Organization: Loopback Holdings');
  });

  it('full mode: WHOIS "No match" is available; premium and reserved notices are read', async () => {
    expect((await whois(`domain=${fresh('whois-free')}`)).body).toMatchObject({
      available: true,
      is_registered: false,
      availability_confidence: 'high',
      is_premium: false,
      premium_type: null,
      is_reserved: false,
    });
    expect((await whois(`domain=${fresh('whois-premium')}`)).body).toMatchObject({
      available: true,
      is_premium: true,
      premium_type: 'registry_premium',
      pricing: { is_premium: true },
    });
    expect((await whois(`domain=${fresh('whois-reserved')}`)).body).toMatchObject({
      available: false,
      is_registered: false,
      is_reserved: true,
      is_premium: true,
      premium_type: 'reserved',
    });
  });

  // RDAP 429 then WHOIS "LIMIT EXCEEDED"; RDAP 503 then a "No match" line followed by a quota notice;
  // RDAP 200 with an empty body then a WHOIS server that closes without a word. DNS says NXDOMAIN for
  // all three: still not "available", since the registries did not answer.
  it.each([
    ['limited', /rate-limiting \(429\).*rate-limiting/],
    ['quota', /answered 503.*rate-limiting/],
    ['empty', /not JSON.*answered nothing/],
  ])(
    'full mode: a registry answering %s gives an unknown answer with low confidence, never a guess',
    async (prefix, notes) => {
      const reply = await whois(`domain=${fresh(prefix)}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ available: null, is_registered: null, availability_confidence: 'low' });
      expect(reply.body.notes.join(' ')).toMatch(notes);
    },
  );

  it.each(['full', 'fast', 'availability_only'])(
    '%s mode: registries and DNS that time out give unknown, low',
    async (mode) => {
      const started = Date.now();
      const reply = await whois(`domain=${fresh('slow')}&mode=${mode}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ available: null, is_registered: null, availability_confidence: 'low' });
      expect(reply.body.notes.join(' ')).toMatch(/did not answer/);
      // Each step is bounded by LOOKUP_TIMEOUT_MS (1 s): RDAP, WHOIS and DNS in full mode, DNS alone otherwise.
      expect(Date.now() - started).toBeLessThan(mode === 'full' ? 8000 : 4000);
    },
  );

  it('fast mode: DNS evidence with medium confidence, then the cache with meta', async () => {
    const taken = fresh('taken');
    const first = await whois(`domain=${taken}&mode=fast`);
    expect(first.body).toMatchObject({
      available: false,
      is_registered: true,
      availability_confidence: 'medium',
      evidence: 'dns',
      parsed_data: { name_servers: FIXTURE_NAME_SERVERS },
    });
    expect(first.body.meta).toMatchObject({ cached: false });
    expect(first.body.raw_data).toContain(`${taken}.\tNS\t${FIXTURE_NAME_SERVERS[0]}.`);
    const second = await whois(`domain=${taken}&mode=fast`);
    expect(second.body.meta.cached).toBe(true);
    expect(second.body.meta.cache_expires).toBe(first.body.meta.cache_expires);
    // Registered names are kept an hour from DNS evidence.
    expect(first.body.meta.cache_expires - Math.floor(Date.now() / 1000)).toBeGreaterThan(3500);

    const free = await whois(`domain=${fresh('free')}&mode=fast`);
    expect(free.body).toMatchObject({
      available: true,
      is_registered: false,
      availability_confidence: 'medium',
      pricing: { available: true, registration_price: 10.88 },
    });
    // Available names are kept five minutes.
    expect(free.body.meta.cache_expires - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(300);
  });

  it('fast mode answers from a cached registry answer, which is better evidence', async () => {
    const domain = fresh('taken');
    await whois(`domain=${domain}`);
    const reply = await whois(`domain=${domain}&mode=fast`);
    expect(reply.body).toMatchObject({
      availability_confidence: 'high',
      evidence: 'rdap',
      meta: { cached: true },
      parsed_data: { registrar: FIXTURE_REGISTRAR },
    });
  });

  it('availability_only mode: availability and price, no record details', async () => {
    const reply = await whois(`domain=${fresh('taken')}&mode=availability_only&currency=JPY`);
    expect(reply.body).toMatchObject({
      available: false,
      is_registered: true,
      availability_confidence: 'medium',
      raw_data: '',
      parsed_data: { registrar: null, name_servers: [], status: [] },
      meta: { cached: false },
    });
    // Yen have no minor unit: a whole number.
    expect(Number.isInteger(reply.body.pricing.registration_price)).toBe(true);
    expect(reply.body.pricing.currency).toBe('JPY');
    const free = await whois(`domain=${fresh('free')}&mode=availability_only`);
    expect(free.body).toMatchObject({
      available: true,
      is_registered: false,
      availability_confidence: 'medium',
      raw_data: '',
      pricing: { available: true },
      meta: { cached: false },
    });
  });

  it('premium rules: aftermarket parking and high price', async () => {
    expect((await whois(`domain=${fresh('parked')}`)).body).toMatchObject({
      is_registered: true,
      is_premium: true,
      premium_type: 'aftermarket',
    });
    // .ai costs 74.90 USD a year and .inc far more: the high_price rule starts at 100 USD.
    expect((await whois(`domain=${fresh('free', 'ai')}`)).body).toMatchObject({
      is_premium: false,
      premium_type: null,
    });
    expect((await whois(`domain=${fresh('free', 'inc')}`)).body).toMatchObject({
      available: true,
      is_premium: true,
      premium_type: 'high_price',
    });
  });

  it('reserved names: RFC 6761 without asking anyone, ICANN Specification 5 in generic TLDs', async () => {
    const special = await whois('domain=anything.test');
    expect(special.body).toMatchObject({
      domain: 'anything.test',
      available: false,
      is_registered: false,
      is_reserved: true,
      premium_type: 'reserved',
      availability_confidence: 'high',
    });
    expect(special.body.whois_server).toMatch(/RFC 6761/);
    // example.com is reserved for documentation (RFC 6761 §6.5): answered by rule, nobody asked.
    expect((await whois('domain=example.com')).body).toMatchObject({
      is_reserved: true,
      available: false,
      is_registered: true,
      availability_confidence: 'high',
      evidence: 'rule',
      whois_server: 'none (RFC 6761 reserved name)',
      raw_data: '',
    });
    expect((await whois('domain=nic.shop')).body).toMatchObject({
      is_reserved: true,
      available: false,
      premium_type: 'reserved',
    });
    // Two-character labels are reserved in generic TLDs, not in country-code ones, and not in .com.
    expect((await whois('domain=freeq.xyz')).body.is_reserved).toBe(false);
    expect((await whois('domain=ab.xyz')).body.is_reserved).toBe(true);
    expect((await whois('domain=ab.de')).body.is_reserved).toBe(false);
  });

  it('accepts IDNs in Unicode and punycode, and looks up the registrable domain of a subdomain', async () => {
    const label = `free-bücher-${randomBytes(3).toString('hex')}`;
    const unicode = await whois(`domain=${encodeURIComponent(`www.${label}.co.uk`)}&mode=fast`);
    expect(unicode.status).toBe(200);
    expect(unicode.body.domain).toMatch(/^xn--free-bcher-.*\.co\.uk$/);
    expect(unicode.body.pricing.registration_price).toBe(4.68);
    const puny = await whois(`domain=${unicode.body.domain}&mode=fast`);
    expect(puny.body.meta.cached).toBe(true);
  });

  it('answers 400 naming the field for bad input', async () => {
    for (const [query, pattern] of [
      ['', /domain is required/],
      ['domain=co.uk', /co\.uk.* is a public suffix, not a registrable domain/],
      ['domain=example.notatld', /not under a known public suffix/],
      ['domain=bad_label!.com', /domain/],
      [`domain=${'a'.repeat(64)}.com`, /1 to 63 characters/],
      ['domain=example.com&mode=slow', /mode: must be one of full, fast, availability_only/],
      ['domain=example.com&currency=XYZ', /currency: must be one of USD, EUR/],
      ['domain=example.com&include_pricing=maybe', /include_pricing: must be true or false/],
    ] as const) {
      const reply = await whois(query);
      expectErrorShape(reply, 400);
      expect(reply.body.message, query).toMatch(pattern);
    }
  });
});

describe.each(targets())('POST and GET /api/v1/network/domains/check ($name)', (target) => {
  const account = newAccount(target);
  const check = async (json: unknown) =>
    call(target, 'POST', '/api/v1/network/domains/check', { key: (await account).key, json });

  it('checks names live through the workflow, then answers repeats from the cache', async () => {
    const taken = fresh('taken');
    const free = fresh('free');
    const first = await check({ domains: [taken, free, taken.toUpperCase()], currency: 'GBP' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      success: true,
      total: 2,
      cached_count: 0,
      checked_count: 2,
      mode: 'fast',
      currency: 'GBP',
    });
    expect(Number.isInteger(first.body.query_time_ms)).toBe(true);
    expect(first.body.results[taken]).toMatchObject({
      success: true,
      available: false,
      is_registered: true,
      is_premium: false,
      availability_confidence: 'medium',
      cached: false,
    });
    expect(first.body.results[taken]).not.toHaveProperty('pricing');
    expect(first.body.results[free]).toMatchObject({
      success: true,
      available: true,
      is_registered: false,
      cached: false,
      pricing: { registration: 8.11, renewal: 8.11, currency: 'GBP', is_premium: false },
    });

    const again = await call(target, 'GET', `/api/v1/network/domains/check?domains=${taken},${free},${fresh('free')}`, {
      key: (await account).key,
    });
    expect(again.body).toMatchObject({ total: 3, cached_count: 2, checked_count: 1, mode: 'fast', currency: 'USD' });
    expect(again.body.results[taken].cached).toBe(true);
  });

  it('full mode asks the registries; each invalid name gets its own entry', async () => {
    const reply = await check({
      domains: [fresh('taken'), fresh('whois-free'), 'not a domain', 'co.uk', 'example.com'],
      mode: 'full',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      total: 5,
      cached_count: 0,
      checked_count: 2,
      answered_by_rule_count: 1,
      invalid_count: 2,
      mode: 'full',
    });
    // RFC 6761 names are answered by rule, in the request: neither cached nor checked.
    expect(reply.body.results['example.com']).toMatchObject({
      success: true,
      available: false,
      is_registered: true,
      is_reserved: true,
      availability_confidence: 'high',
      cached: false,
    });
    const entries = Object.values(reply.body.results) as any[];
    expect(entries.filter((e) => e.success).every((e) => e.availability_confidence === 'high')).toBe(true);
    expect(reply.body.results['co.uk']).toMatchObject({ success: false });
    expect(reply.body.results['co.uk'].error).toMatch(/public suffix/);
    expect(reply.body.results['not a domain']).toMatchObject({ success: false });
  });

  it(
    'answers by its deadline with what it has, ' + 'the rest as timeout entries (6 x LOOKUP_TIMEOUT_MS here: 6 s)',
    async () => {
      // One registry, 4 names at a time in full mode; a silent name takes RDAP + WHOIS + DNS = about 3 s.
      const free = [fresh('free'), fresh('whois-free')];
      const slow = Array.from({ length: 20 }, () => fresh('slow'));
      const started = Date.now();
      const reply = await check({ domains: [...free, ...slow], mode: 'full' });
      const took = Date.now() - started;
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ success: true, total: 22, checked_count: 22 });
      for (const name of free)
        expect(reply.body.results[name]).toMatchObject({
          success: true,
          available: true,
          availability_confidence: 'high',
        });
      const entries = slow.map((name) => reply.body.results[name]);
      const timedOut = entries.filter((e) => e.success === false);
      // 20 silent names need 5 rounds of about 3 s: the answer came at the deadline, long before all were done.
      expect(took).toBeLessThan(12_000);
      expect(timedOut.length).toBeGreaterThan(0);
      for (const e of timedOut) {
        expect(e.error).toBe('timeout');
        expect(e.message).toMatch(/no answer within 6 s; the check goes on \(workflow domain-check-/);
      }
      for (const e of entries.filter((e) => e.success))
        expect(e).toMatchObject({ available: null, availability_confidence: 'low' });
    },
  );

  it('takes at most 100 names: 101 is 400 telling the caller to split', async () => {
    const names = Array.from({ length: 101 }, (_, i) => `free-${i}.com`);
    const reply = await check({ domains: names });
    expectErrorShape(reply, 400);
    expect(reply.body.message).toMatch(/domains: must hold at most 100 domains: split/);
    const hundred = await check({
      domains: names.slice(0, 100).map((n) => n.replace('free-', `free-${randomBytes(3).toString('hex')}-`)),
    });
    expect(hundred.status).toBe(200);
    expect(hundred.body.total).toBe(100);
  });

  it('answers 400 naming the field for bad input', async () => {
    for (const [json, pattern] of [
      [{}, /domains is required/],
      [{ domains: 'a.com' }, /domains: must be an array/],
      [{ domains: [] }, /at least one/],
      [{ domains: [1] }, /domains\.0: must be strings/],
      [{ domains: ['a.com'], mode: 'slow' }, /mode: must be fast or full/],
      [{ domains: ['a.com'], currency: 'XYZ' }, /currency: must be one of/],
    ] as const) {
      const reply = await check(json);
      expectErrorShape(reply, 400);
      expect(reply.body.message, JSON.stringify(json)).toMatch(pattern);
    }
  });
});
