// Proof of control before large load tests (TARGET_VERIFICATION=required, as on a public instance):
// a large test is refused (403 target_not_verified, saying how to prove it) until the target serves
// the caller's token at /.well-known/netops-verification.txt or in a DNS TXT record; refused again
// once the token is gone and the remembered proof has expired (2 s here). Small tests run without it.
// The app runs on its own (its own configuration), with its own loopback DNS server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Answer } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../fixtures/dns-server.ts';
import { connectedClient, newUser } from '../support/mcp.ts';
import { newAccount } from '../support/client.ts';
import { pacedTest } from '../support/load-tests.ts';
import { startApp, tempDir, type AppProcess } from '../support/processes.ts';

const TTL_SECONDS = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('target verification before large load tests', () => {
  let app: AppProcess;
  let dns: DnsFixture;
  let site: http.Server;
  let siteUrl: string;
  /** The same server on another port (one address, another origin). */
  let siteTwo: http.Server;
  let siteTwoUrl: string;
  let key: string;
  /** What the site serves as its verification file (404 when null), and how often it was asked. */
  let served: string | null = null;
  let proofFetches = 0;
  const extra: Record<string, Partial<Record<string, Answer[]>>> = {};

  beforeAll(async () => {
    const handler: http.RequestListener = (req, res) => {
      if (req.url === '/.well-known/netops-verification.txt') {
        proofFetches++;
        if (served === null) return res.writeHead(404).end('not here');
        return res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(`# tokens of the people allowed to load this site\n${served}\n`);
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    };
    [site, siteTwo] = [http.createServer(handler), http.createServer(handler)];
    for (const server of [site, siteTwo])
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    siteTwoUrl = `http://127.0.0.1:${(siteTwo.address() as AddressInfo).port}/`;
    dns = await startDnsServer({ extra });
    app = await startApp({
      DATA_DIR: await tempDir('target-verification'),
      NETWORK_ALLOW: '127.0.0.1/32',
      DNS_SERVERS: dns.address,
      TARGET_VERIFICATION: 'required',
      TARGET_VERIFICATION_TTL_SECONDS: String(TTL_SECONDS),
    });
    ({ key } = await newAccount(app));
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await dns?.close();
    for (const server of [site, siteTwo]) {
      server?.closeAllConnections();
      await new Promise((r) => server?.close(r));
    }
  });

  const post = async (path: string, json: unknown, as = key) => {
    const res = await fetch(`${app.baseUrl}/api/v1${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': as, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  // Large by its users only: 51 users at 20 requests/s for 10 s is gentle on the loopback site.
  const large = (targetUrl = siteUrl) => post('/load-testing/start', pacedTest(targetUrl, { concurrentUsers: 51 }));
  /** The edge of each bound: 50 users, 50/s, 60 s is small. */
  const edge = { concurrentUsers: 50, testDuration: 60, requestsPerSecond: 50 };

  it('refuses a large test until the token is served, accepts it then, and refuses again once it is gone and ' +
    'the proof expired', {
    timeout: 90_000,
  }, async () => {
    // Small tests run as before; the edge of each bound: 50 users, 50/s, 60 s is small. A second one of
    // the same server at once is refused (side by side they would add up to a large one), by any URL of
    // it: another path, another port of its address, a name for it.
    const small = await post('/load-testing/start', pacedTest(siteUrl, edge));
    expect(small.status, JSON.stringify(small.body)).toBe(202);
    const second = await post(
      '/load-testing/start',
      pacedTest(`${siteUrl}other`, { concurrentUsers: 1, requestsPerSecond: 1 }),
    );
    expect(second.status).toBe(403);
    expect(second.body.message).toMatch(/a second test at once of the same server .* needs proof/);
    for (const url of [siteTwoUrl, siteUrl.replace('127.0.0.1', 'localhost')]) {
      const shared = await post('/load-testing/start', pacedTest(url, { concurrentUsers: 1, requestsPerSecond: 1 }));
      expect(shared.status, url).toBe(403);
      expect(shared.body).toMatchObject({ error_code: 'target_not_verified' });
    }
    // Stopped once running (a pending test cannot be stopped yet).
    for (let i = 0; i < 50 && (await post(`/load-testing/stop/${small.body.test_id}`, {})).status !== 200; i++)
      await sleep(200);
    expect(
      (await (
        await fetch(`${app.baseUrl}/api/v1/load-testing/status/${small.body.test_id}`, {
          headers: { 'X-API-Key': key },
        })
      ).json()) as any,
    ).toMatchObject({ stop_requested: true });
    for (const over of [
      { concurrentUsers: 51 },
      { requestsPerSecond: 51 },
      { requestsPerSecond: 0 },
      { testDuration: 61 },
    ]) {
      const refused = await post('/load-testing/start', pacedTest(siteUrl, { ...edge, ...over }));
      expect(refused.status, JSON.stringify(over)).toBe(403);
      expect(refused.body.error_code).toBe('target_not_verified');
    }

    const refused = await large();
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, code: 403, error_code: 'target_not_verified' });
    expect(refused.body.message).toContain('/.well-known/netops-verification.txt');

    // The token: the same on every ask, its methods named; not verified while nothing serves it.
    const issued = await post('/load-testing/targets', { targetUrl: siteUrl });
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({
      success: true,
      host: '127.0.0.1',
      verified: false,
      verified_by: null,
      required: true,
      required_above: { concurrent_users: 50, requests_per_second: 50, test_duration: 60 },
      trusted_for_seconds: TTL_SECONDS,
    });
    expect(issued.body.token).toMatch(/^netops-verification=[A-Za-z0-9_-]{32}$/);
    // an address has no DNS name to hold a record
    expect(issued.body.methods.map((m: any) => m.type)).toEqual(['http']);
    expect(refused.body.message).toContain(issued.body.token);
    expect((await post('/load-testing/targets', { targetUrl: `${siteUrl}other/path` })).body.token).toBe(
      issued.body.token,
    );

    // Another user's token for the same host, even proven and remembered, does not verify this user.
    const other = (await newAccount(app)).key;
    const otherAsk = async () =>
      (await (
        await fetch(`${app.baseUrl}/api/v1/load-testing/targets`, {
          method: 'POST',
          headers: { 'X-API-Key': other, 'content-type': 'application/json' },
          body: JSON.stringify({ targetUrl: siteUrl }),
        })
      ).json()) as any;
    const otherToken = (await otherAsk()).token;
    expect(otherToken).not.toBe(issued.body.token);
    served = otherToken;
    expect(await otherAsk()).toMatchObject({ verified: true, verified_by: 'http', addresses: ['127.0.0.1'] });
    expect((await large()).status).toBe(403);

    served = `${otherToken}\n${issued.body.token}`;
    const accepted = await large();
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect((await post('/load-testing/targets', { targetUrl: siteUrl })).body).toMatchObject({
      verified: true,
      verified_by: 'cached',
      addresses: ['127.0.0.1'],
    });

    // The token removed: the remembered proof still holds until it expires, then the host is asked again.
    served = null;
    const fetchesBefore = proofFetches;
    expect((await large()).status).toBe(202);
    expect(proofFetches).toBe(fetchesBefore);
    await sleep(TTL_SECONDS * 1000 + 500);
    const again = await large();
    expect(again.status).toBe(403);
    expect(again.body.error_code).toBe('target_not_verified');
    expect(proofFetches).toBeGreaterThan(fetchesBefore);
  });

  it('lets one of two small tests started at once on one server through, not both', {
    timeout: 60_000,
  }, async () => {
    const { key: fresh } = await newAccount(app);
    const small = { concurrentUsers: 1, requestsPerSecond: 1 };
    const both = await Promise.all(
      [siteUrl, siteTwoUrl].map((url) => post('/load-testing/start', pacedTest(url, small), fresh)),
    );
    expect(both.map((r) => r.status).sort()).toEqual([202, 403]);
    expect(both.find((r) => r.status === 403)?.body.message).toMatch(/a second test at once of the same server/);
  });

  it('accepts a DNS TXT record as the proof, and refuses private targets before anything is fetched', {
    timeout: 60_000,
  }, async () => {
    const byName = siteUrl.replace('127.0.0.1', 'localhost');
    const issued = await post('/load-testing/targets', { targetUrl: byName });
    expect(issued.body).toMatchObject({ host: 'localhost', verified: false });
    expect(issued.body.methods).toContainEqual(
      expect.objectContaining({
        type: 'dns',
        name: '_netops-verification.localhost',
        record: 'TXT',
        value: issued.body.token,
      }),
    );
    expect((await large(byName)).status).toBe(403);
    extra['_netops-verification.localhost'] = {
      TXT: [{ type: 'TXT', name: '_netops-verification.localhost', ttl: 60, data: [issued.body.token] } as Answer],
    };
    const accepted = await large(byName);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(dns.queries).toContainEqual({ name: '_netops-verification.localhost', type: 'TXT' });

    const fetchesBefore = proofFetches;
    const internal = await post('/load-testing/targets', { targetUrl: 'http://10.0.0.1/' });
    expect(internal.status).toBe(400);
    expect(internal.body.message).toMatch(/targetUrl/);
    expect(proofFetches).toBe(fetchesBefore);
  });

  it('tells an MCP client how to verify, and verifies through the tool', { timeout: 60_000 }, async () => {
    const target = { name: 'own', baseUrl: app.baseUrl, env: app.env } as any;
    const user = await newUser(target);
    const { client } = await connectedClient(target, user.email);
    const refused = await client.callTool({
      name: 'load_test_start',
      arguments: pacedTest(siteUrl, { concurrentUsers: 51 }),
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('/.well-known/netops-verification.txt');
    const verify = await client.callTool({ name: 'load_test_verify_target', arguments: { targetUrl: siteUrl } });
    expect(verify.structuredContent).toMatchObject({ host: '127.0.0.1', verified: false });
    served = (verify.structuredContent as any).token;
    expect(
      (await client.callTool({ name: 'load_test_verify_target', arguments: { targetUrl: siteUrl } })).structuredContent,
    ).toMatchObject({ verified: true, verified_by: 'http' });
    await client.close();
  });
});
