import dns from 'node:dns';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { whoisLookup, whoisQuery } from '../../../../domain/whois/whois-client.ts';
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

  describe('a server an answer names, on a port other than 43', () => {
    afterEach(() => vi.restoreAllMocks());
    // Spied on, so that a broken rule reaches no other address: the refusal must come before either.
    const spies = () => ({
      connect: vi.spyOn(net, 'connect').mockImplementation(() => {
        throw new Error('connected');
      }),
      lookup: vi.spyOn(dns, 'lookup').mockImplementation(() => {
        throw new Error('looked up');
      }),
    });

    it('is refused on an address the policy allows, before connecting', async () => {
      const { connect } = spies();
      await expect(whoisQuery('8.8.8.8:25', 'example.com', { timeoutMs: 500, guard: { allow: [] } })).rejects.toThrow(
        'WHOIS server 8.8.8.8:25 not allowed: port 25: a server an answer names is asked on port 43',
      );
      expect(connect).not.toHaveBeenCalled();
    });

    it('is refused by name before the name is looked up, when NETWORK_ALLOW names no address', async () => {
      const { connect, lookup } = spies();
      await expect(
        whoisQuery('whois.registrar.example:6379', 'example.com', { timeoutMs: 500, guard: { allow: [] } }),
      ).rejects.toThrow('not allowed: port 6379');
      expect(lookup).not.toHaveBeenCalled();
      expect(connect).not.toHaveBeenCalled();
    });
  });

  it('gives up on a silent server after the time limit', async () => {
    const started = performance.now();
    const answer = await whoisLookup('slow-one.com', 'com', { server: servers.registry, allow: [], timeoutMs: 300 });
    expect(answer.verdict).toBe('error');
    expect(answer.reason).toMatch(/did not answer within 300 ms/);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
