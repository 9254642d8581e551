// The domain check activity with its real dependencies: the lookup (RDAP, WHOIS, DNS) against the
// loopback registry fixtures, which answer by the name's prefix (test/fixtures/registry-names.ts), and
// the in-process key-value store as its cache. It answers the registrable name's summary (never the
// raw answer), by the evidence the mode allows, from the cache when it has it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWhoisActivities, type WhoisActivities } from '../../../../activities/whois/index.ts';
import { createDomainLookup } from '../../../../domain/whois/lookup.ts';
import { MemoryKvStore } from '../../../../lib/kv/index.ts';
import { startDnsServer, type DnsFixture } from '../../../fixtures/dns-server.ts';
import { startRdapServer, type RdapFixture } from '../../../fixtures/rdap-server.ts';
import { startWhoisServers, type WhoisFixture } from '../../../fixtures/whois-server.ts';
import { checkSummary } from '../../../support/domain-checks.ts';

let dns: DnsFixture;
let whois: WhoisFixture;
let rdap: RdapFixture;
let activities: WhoisActivities;

beforeAll(async () => {
  [dns, whois, rdap] = await Promise.all([startDnsServer(), startWhoisServers(), startRdapServer()]);
  const lookup = createDomainLookup({
    kv: new MemoryKvStore(),
    dnsServers: [dns.address],
    whoisServer: whois.root,
    rdapBaseUrl: rdap.url,
    allow: ['127.0.0.1/32'],
    timeoutMs: 1000,
  });
  activities = createWhoisActivities(lookup);
});
afterAll(() => Promise.all([dns?.close(), whois?.close(), rdap?.close()]));

const asked = (domain: string) => ({
  rdap: rdap.paths.filter((p) => p.endsWith(`/domain/${domain}`)).length,
  whois: whois.queries.registry.filter((q) => q === domain).length,
  dns: dns.queries.filter((q) => q.name === domain).length,
});

describe('checkDomain', () => {
  it(
    "answers a registered name's registrable domain from RDAP, " + 'without the raw answer, then from the cache',
    async () => {
      const first = await activities.checkDomain('www.taken-one.com', 'full');
      expect(first).toEqual({
        cached: false,
        check: checkSummary('taken-one.com', {
          available: false,
          is_registered: true,
          whois_server: expect.any(String),
        }),
      });
      expect(first.check).not.toHaveProperty('raw_data');
      expect(first.check).not.toHaveProperty('parsed_data');
      expect(asked('taken-one.com')).toEqual({ rdap: 1, whois: 0, dns: 0 });
      expect(await activities.checkDomain('taken-one.com', 'full')).toEqual({ ...first, cached: true });
      expect(asked('taken-one.com').rdap).toBe(1);
    },
  );

  it("asks WHOIS when RDAP cannot answer, and tells a marketplace's parked name", async () => {
    expect((await activities.checkDomain('whois-free-two.com', 'full')).check).toMatchObject({
      available: true,
      is_registered: false,
      evidence: 'whois',
      confidence: 'high',
    });
    expect(asked('whois-free-two.com')).toMatchObject({ rdap: 1, whois: 1 });
    expect((await activities.checkDomain('parked-three.com', 'full')).check).toMatchObject({
      is_registered: true,
      aftermarket: true,
    });
  });

  it('asks DNS only in the fast mode', async () => {
    expect(await activities.checkDomain('free-four.com', 'fast')).toMatchObject({
      cached: false,
      check: { available: true, is_registered: false, evidence: 'dns', confidence: 'medium' },
    });
    expect(asked('free-four.com')).toEqual({ rdap: 0, whois: 0, dns: 1 });
  });

  it('answers a name reserved by RFC 6761 by rule, asking nobody', async () => {
    expect((await activities.checkDomain('example.com', 'full')).check).toMatchObject({
      available: false,
      is_reserved: true,
      evidence: 'rule',
    });
    expect(asked('example.com')).toEqual({ rdap: 0, whois: 0, dns: 0 });
  });
});

describe('checkDomains', () => {
  it('checks a batch of names (at most `concurrency` at once), each answered as checkDomain answers it', async () => {
    const names = ['free-b1.com', 'taken-b2.com', 'free-b3.com', 'taken-b4.com', 'free-b5.com'];
    const answers = await activities.checkDomains(names, 'fast', 2);
    expect(Object.keys(answers).sort()).toEqual([...names].sort());
    expect(answers['free-b1.com']).toMatchObject({ check: { available: true, evidence: 'dns' } });
    expect(answers['taken-b2.com']).toMatchObject({ check: { available: false, is_registered: true } });
    for (const name of names) expect(asked(name)).toEqual({ rdap: 0, whois: 0, dns: 1 });
  });

  it('reports a name it cannot check with the reason, and checks the others', async () => {
    const answers = await activities.checkDomains(['free-b6.com', 'not a name'], 'fast', 4);
    expect(answers['free-b6.com']).toMatchObject({ check: { available: true } });
    expect(answers['not a name']).toEqual({ error: expect.stringMatching(/^the check failed: /) });
  });
});
