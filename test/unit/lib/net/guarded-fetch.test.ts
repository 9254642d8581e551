// The SSRF guard against servers this test starts on loopback. Refusals must happen before any
// connection: each server counts the connections it accepts.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../../lib/errors.ts';
import { createGuardedFetch } from '../../../../lib/net/guarded-fetch.ts';
import { checkTarget, ForbiddenAddressError } from '../../../../lib/net/target-guard.ts';
import { startHttpsServer } from '../../../fixtures/https-server.ts';

interface Fixture {
  url: string;
  connections: number;
  close(): Promise<void>;
}

async function serve(host: string, handler: http.RequestListener): Promise<Fixture> {
  const server = http.createServer(handler);
  const fixture = { url: '', connections: 0, close: () => new Promise<void>((r) => server.close(() => r())) };
  server.on('connection', () => (fixture.connections += 1));
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const { port } = server.address() as AddressInfo;
  fixture.url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return fixture;
}

describe('guarded fetch', () => {
  let target: Fixture; // 127.0.0.1: allowed in most cases below
  let other: Fixture; // 127.0.0.2: never allowed here
  let second: Fixture; // another origin on 127.0.0.1
  beforeAll(async () => {
    second = await serve('127.0.0.1', (req, res) => res.end(String(req.headers.authorization ?? 'none')));
    other = await serve('127.0.0.2', (_req, res) => res.end('should never be reached'));
    target = await serve('127.0.0.1', (req, res) => {
      const u = new URL(req.url!, 'http://x');
      if (u.pathname === '/hello')
        return res.writeHead(200, { 'content-type': 'text/plain', 'x-a': 'b' }).end(`hello ${req.method}`);
      if (u.pathname === '/to-hello') return res.writeHead(302, { location: '/hello' }).end();
      if (u.pathname === '/see-other') return res.writeHead(303, { location: '/hello' }).end();
      if (u.pathname === '/to-other') return res.writeHead(302, { location: `${other.url}/` }).end();
      if (u.pathname === '/to-mapped')
        return res.writeHead(301, { location: `http://[::ffff:127.0.0.2]:${new URL(other.url).port}/` }).end();
      if (u.pathname === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (u.pathname === '/big') return res.end(Buffer.alloc(2048, 97));
      if (u.pathname === '/exact') return res.end(Buffer.alloc(1024, 97));
      if (u.pathname === '/slow') return setTimeout(() => res.end('late'), 2000);
      if (u.pathname === '/echo-auth') return res.end(String(req.headers.authorization ?? 'none'));
      if (u.pathname === '/to-echo-same') return res.writeHead(302, { location: '/echo-auth' }).end();
      if (u.pathname === '/to-echo-elsewhere') return res.writeHead(302, { location: `${second.url}/echo-auth` }).end();
      if (u.pathname === '/bad-location') return res.writeHead(302, { location: 'http://[' }).end();
      res.writeHead(404).end();
    });
  });
  afterAll(async () => {
    await target.close();
    await other.close();
    await second.close();
  });
  const allowTarget = () => createGuardedFetch({ allow: ['127.0.0.1/32'], timeoutMs: 1000, maxBytes: 1024 });

  it('refuses loopback by name and by literal, before connecting', async () => {
    const guarded = createGuardedFetch();
    const before = target.connections;
    await expect(guarded(`${target.url}/hello`)).rejects.toBeInstanceOf(ForbiddenAddressError);
    await expect(guarded(`http://localhost:${new URL(target.url).port}/hello`)).rejects.toThrow(
      /localhost resolves to .*private, loopback/,
    );
    await expect(guarded(`http://[::ffff:127.0.0.1]:${new URL(target.url).port}/hello`)).rejects.toBeInstanceOf(
      ForbiddenAddressError,
    );
    await expect(guarded(`http://[::1]:${new URL(target.url).port}/hello`)).rejects.toBeInstanceOf(
      ForbiddenAddressError,
    );
    await expect(guarded('http://169.254.169.254/latest/meta-data/')).rejects.toBeInstanceOf(ForbiddenAddressError);
    await expect(guarded('http://10.0.0.1/')).rejects.toBeInstanceOf(ForbiddenAddressError);
    // Decimal, octal and hexadecimal spellings of 127.0.0.1 are the same address to the URL parser.
    for (const host of ['2130706433', '0177.0.0.1', '0x7f.0.0.1', '127.1']) {
      await expect(guarded(`http://${host}:${new URL(target.url).port}/hello`), host).rejects.toThrow(
        /target not allowed: 127\.0\.0\.1/,
      );
    }
    expect(target.connections).toBe(before);
  });

  it('refuses a name with any forbidden answer, even beside a public one', async () => {
    const guarded = createGuardedFetch({ resolve: async () => ['93.184.215.14', '127.0.0.1'] });
    await expect(guarded(`http://rebind.example:${new URL(target.url).port}/hello`)).rejects.toThrow(
      /resolves to 127\.0\.0\.1/,
    );
  });

  it('refuses other schemes, credentials and malformed URLs with 400', async () => {
    const guarded = createGuardedFetch();
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'http://user:pw@example.com/', 'not a url']) {
      await expect(guarded(url), url).rejects.toMatchObject({ status: 400, field: 'url' });
    }
  });

  it('fetches from an allowed address, with status, headers and body', async () => {
    const guarded = allowTarget();
    const res = await guarded(`${target.url}/hello`);
    expect(res).toMatchObject({ status: 200, url: `${target.url}/hello`, chain: [`${target.url}/hello`] });
    expect(res.headers['x-a']).toBe('b');
    expect(res.body.toString()).toBe('hello GET');
  });

  it('follows redirects, checking every hop, and turns 303 into GET', async () => {
    const guarded = allowTarget();
    const res = await guarded(`${target.url}/to-hello`);
    expect(res.chain).toEqual([`${target.url}/to-hello`, `${target.url}/hello`]);
    expect((await guarded(`${target.url}/see-other`, { method: 'POST', body: 'x' })).body.toString()).toBe('hello GET');

    await expect(guarded(`${target.url}/to-other`)).rejects.toBeInstanceOf(ForbiddenAddressError);
    await expect(guarded(`${target.url}/to-mapped`)).rejects.toBeInstanceOf(ForbiddenAddressError);
    expect(other.connections).toBe(0);
  });

  it('keeps credentials within their origin across redirects, and answers 502 for a broken Location', async () => {
    const guarded = allowTarget();
    const auth = { headers: { Authorization: 'Bearer secret' } };
    expect((await guarded(`${target.url}/to-echo-same`, auth)).body.toString()).toBe('Bearer secret');
    expect((await guarded(`${target.url}/to-echo-elsewhere`, auth)).body.toString()).toBe('none');
    await expect(guarded(`${target.url}/bad-location`)).rejects.toMatchObject({ status: 502 });
  });

  it('bounds redirects, response size and time', async () => {
    const guarded = allowTarget();
    await expect(guarded(`${target.url}/loop`)).rejects.toThrow(/More than 5 redirects/);
    expect((await guarded(`${target.url}/exact`)).body.length).toBe(1024);
    await expect(guarded(`${target.url}/big`)).rejects.toThrow(/larger than 1024 bytes/);
    const slow = guarded(`${target.url}/slow`);
    await expect(slow).rejects.toBeInstanceOf(UpstreamError);
    await expect(slow).rejects.toMatchObject({ status: 504 });
  });

  it('answers 502 for an unrequested 101, without hanging', async () => {
    const raw = net.createServer((socket) =>
      socket.once('data', () =>
        socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'),
      ),
    );
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', () => r()));
    const guarded = allowTarget();
    await expect(guarded(`http://127.0.0.1:${(raw.address() as AddressInfo).port}/`)).rejects.toMatchObject({
      status: 502,
    });
    await new Promise<void>((r) => raw.close(() => r()));
  });

  it(
    'opens a connection per request, unless asked to keep them alive; either way the guard refuses before ' +
      'connecting',
    async () => {
      const count = async (guarded: ReturnType<typeof createGuardedFetch>) => {
        const before = target.connections;
        for (let i = 0; i < 3; i++)
          expect((await guarded(`${target.url}/hello`, { method: 'POST', body: 'x' })).body.toString()).toBe(
            'hello POST',
          );
        return target.connections - before;
      };
      expect(await count(allowTarget())).toBe(3);
      const keeping = createGuardedFetch({ allow: ['127.0.0.1/32'], keepAlive: true });
      expect(await count(keeping)).toBe(1);
      // Reuse adds nothing to the socket: watching its connection phases once per request piled listeners up.
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.name);
      process.on('warning', onWarning);
      for (let i = 0; i < 15; i++) await keeping(`${target.url}/hello`);
      await new Promise((r) => setImmediate(r));
      process.off('warning', onWarning);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
      const refusing = createGuardedFetch({ keepAlive: true });
      const before = target.connections;
      await expect(refusing(`${target.url}/hello`)).rejects.toBeInstanceOf(ForbiddenAddressError);
      await expect(refusing(`http://localhost:${new URL(target.url).port}/hello`)).rejects.toBeInstanceOf(
        ForbiddenAddressError,
      );
      expect(target.connections).toBe(before);
    },
  );

  it('cuts a large body at maxBytes when asked to, instead of failing', async () => {
    const guarded = createGuardedFetch({ allow: ['127.0.0.1/32'], maxBytes: 1024, onOversize: 'truncate' });
    const res = await guarded(`${target.url}/big`);
    expect(res.truncated).toBe(true);
    expect(res.body.length).toBe(1024);
    expect((await guarded(`${target.url}/exact`)).truncated).toBe(false);
  });

  it('resolves names over https through the same guard, with SNI and timings', async () => {
    const site = await startHttpsServer();
    const port = new URL(site.url).port;
    try {
      const allowed = createGuardedFetch({
        allow: ['127.0.0.1/32'],
        allowInvalidCertificates: true,
        resolve: async () => ['127.0.0.1'],
      });
      const res = await allowed(`https://site.example:${port}/hardened`);
      expect(res.status).toBe(200);
      expect(res.tls).toMatchObject({ authorized: false, protocol: 'TLSv1.3', certificate: { subject: 'localhost' } });
      expect(res.timings.ssl).toBeGreaterThan(0);
      expect(res.remoteAddress).toBe('127.0.0.1');
      const before = site.connections;
      const refused = createGuardedFetch({ allowInvalidCertificates: true, resolve: async () => ['127.0.0.1'] });
      await expect(refused(`https://site.example:${port}/hardened`)).rejects.toBeInstanceOf(ForbiddenAddressError);
      expect(site.connections).toBe(before);
      // Without allowInvalidCertificates, a self-signed certificate is a 502.
      await expect(
        createGuardedFetch({ allow: ['127.0.0.1/32'], resolve: async () => ['127.0.0.1'] })(
          `https://site.example:${port}/`,
        ),
      ).rejects.toMatchObject({ status: 502, message: expect.stringMatching(/TLS failed/) });
    } finally {
      await site.close();
    }
  });

  it('maps every failure to reach a target one way, as checkTarget does (reach-failure.ts)', async () => {
    const failing = (code: string) => async () => {
      throw Object.assign(new Error(`getaddrinfo ${code}`), { code });
    };
    const names = async (host: string) => (host === 'gone.example' ? failing('ENOTFOUND')() : ['127.0.0.1']);
    const port = new URL(target.url).port;
    const asInput = createGuardedFetch({
      allow: ['127.0.0.1/32'],
      timeoutMs: 1000,
      resolve: failing('ENOTFOUND'),
      field: 'url',
    });
    // A host the caller named that does not exist is the caller's input: 400 naming the field, as checkTarget says it.
    const nxdomain = {
      status: 400,
      code: 'invalid_input',
      field: 'url',
      message: 'url: gone.example does not resolve to an address',
    };
    await expect(asInput('http://gone.example/')).rejects.toMatchObject(nxdomain);
    await expect(checkTarget('http://gone.example/', { resolve: failing('ENOTFOUND') })).rejects.toMatchObject(
      nxdomain,
    );
    // Without a field (not the caller's input), and behind a redirect, it is the upstream's failure: 502.
    await expect(createGuardedFetch({ resolve: failing('ENOTFOUND') })('http://gone.example/')).rejects.toMatchObject({
      status: 502,
      message: 'http://gone.example/: gone.example does not resolve to an address',
    });
    const redirecting = await serve('127.0.0.1', (_req, res) =>
      res.writeHead(302, { location: `http://gone.example:${port}/` }).end(),
    );
    try {
      await expect(
        createGuardedFetch({ allow: ['127.0.0.1/32'], resolve: names, field: 'url' })(`${redirecting.url}/`),
      ).rejects.toMatchObject({ status: 502, code: 'upstream_failed' });
    } finally {
      await redirecting.close();
    }
    // A resolver that fails is not the name's fault: 502 from both.
    const resolverDown = {
      status: 502,
      code: 'upstream_failed',
      message: expect.stringMatching(/gone\.example could not be resolved .*EAI_AGAIN/),
    };
    await expect(
      createGuardedFetch({ resolve: failing('EAI_AGAIN'), field: 'url' })('http://gone.example/'),
    ).rejects.toMatchObject(resolverDown);
    await expect(checkTarget('http://gone.example/', { resolve: failing('EAI_AGAIN') })).rejects.toMatchObject(
      resolverDown,
    );
    // No answer in time: 504.
    await expect(allowTarget()(`${target.url}/slow`)).rejects.toMatchObject({ status: 504, code: 'timeout' });
    // RFC 6761: a .invalid name is refused as nonexistent without asking any resolver.
    await expect(checkTarget('https://anything.invalid/path')).rejects.toMatchObject({
      status: 400,
      message: 'url: anything.invalid does not resolve to an address',
    });
  });

  it('answers 502 when nothing listens', async () => {
    const closed = await serve('127.0.0.1', () => {});
    await closed.close();
    const guarded = allowTarget();
    await expect(guarded(`${closed.url}/`)).rejects.toMatchObject({ status: 502 });
  });
});
