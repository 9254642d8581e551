import { describe, expect, it } from 'vitest';
import { createDomainLookup } from '../../../../domain/whois/lookup.ts';
import type { LookupMode } from '../../../../lib/jobs/domain-check.ts';
import { MemoryKvStore } from '../../../../lib/kv/index.ts';

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
