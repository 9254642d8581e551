import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whoisLookup } from '../../../../domain/whois/whois-client.ts';
import { FIXTURE_REGISTRAR } from '../../../fixtures/registry-names.ts';
import { startWhoisServers, type WhoisFixture } from '../../../fixtures/whois-server.ts';

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
