// The RDAP client against small loopback servers: redirects leave the trusted base and go through
// the address guard; an oversized answer is refused rather than read whole.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bootstrapBase, RDAP_MAX_BYTES, rdapLookup } from '../../../../domain/whois/rdap.ts';
import { registryWhoisServer } from '../../../../domain/whois/whois-client.ts';
import { rdapDomain } from '../../../fixtures/rdap-server.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/rdap/`;
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/rdap+json' });
  res.end(JSON.stringify(body));
};

describe('rdapLookup', () => {
  it('follows a redirect to an allowed address and reads the registration there', async () => {
    const registry = await serve((_req, res) => json(res, 200, rdapDomain('moved.test', ['ns1.moved.test'])));
    const base = await serve((req, res) => {
      res.writeHead(302, { location: `${registry}${req.url!.split('/rdap/')[1]}` });
      res.end();
    });
    const answer = await rdapLookup('moved.test', 'test', { baseUrl: base, timeoutMs: 2000, allow: ['127.0.0.1/32'] });
    expect(answer?.verdict).toBe('registered');
    expect(answer?.parsed.name_servers).toEqual(['ns1.moved.test']);
  });

  it('refuses a redirect to a private address without connecting to it', async () => {
    // 10.255.255.1 is never reached: the guard refuses before connecting (the test would hang otherwise).
    const base = await serve((_req, res) => {
      res.writeHead(301, { location: 'http://10.255.255.1/rdap/domain/x.test' });
      res.end();
    });
    const answer = await rdapLookup('x.test', 'test', { baseUrl: base, timeoutMs: 2000, allow: ['127.0.0.1/32'] });
    expect(answer?.verdict).toBe('error');
    expect(answer?.reason).toMatch(/not allowed|private|refus|forbidden/i);
  });

  it('refuses a redirect to loopback when loopback is not allowed (the trusted base itself is)', async () => {
    const registry = await serve((_req, res) => json(res, 200, rdapDomain('x.test', ['ns1.x.test'])));
    const base = await serve((_req, res) => {
      res.writeHead(302, { location: `${registry}domain/x.test` });
      res.end();
    });
    const answer = await rdapLookup('x.test', 'test', { baseUrl: base, timeoutMs: 2000, allow: [] });
    expect(answer?.verdict).toBe('error');
    expect(answer?.reason).toMatch(/not allowed|loopback|refus|forbidden/i);
  });

  it('stops reading an answer larger than the limit', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/rdap+json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent <= RDAP_MAX_BYTES + chunk.length) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const answer = await rdapLookup('big.test', 'test', { baseUrl: base, timeoutMs: 5000, allow: ['127.0.0.1/32'] });
    expect(answer?.verdict).toBe('error');
    expect(answer?.reason).toMatch(/larger than/);
  });
});

describe('RDAP answers', () => {
  it('finds the RDAP base of a TLD in the shipped IANA bootstrap, and none for a TLD without RDAP', () => {
    expect(bootstrapBase('com')).toMatch(/^https:\/\/rdap\.verisign\.com\/com\/v1\/?$/);
    expect(bootstrapBase('nosuchtld')).toBeNull();
    expect(registryWhoisServer('com')).toBe('whois.verisign-grs.com');
  });
});
