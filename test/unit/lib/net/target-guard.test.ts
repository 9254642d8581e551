// The SSRF guard on its own: URL checks, literal and resolved addresses, and the lookup hook sockets
// use. Names are answered by a resolver the test gives; the one socket test talks to a loopback
// server this test starts, and must be refused before it connects.
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../lib/errors.ts';
import { createAddressPolicy } from '../../../../lib/net/address-policy.ts';
import {
  addressesOf,
  checkTarget,
  checkUrl,
  ForbiddenAddressError,
  guardedLookup,
  loadTestResolve,
  type Resolve,
} from '../../../../lib/net/target-guard.ts';

const answers =
  (...sets: string[][]): Resolve =>
  async () =>
    sets.length > 1 ? sets.shift()! : sets[0]!;

/** The lookup hook's answer for `hostname`, as a socket would get it. */
function lookUp(lookup: net.LookupFunction, hostname: string, all: boolean): Promise<unknown> {
  return new Promise((resolve, reject) => {
    lookup(hostname, { all }, (err: Error | null, address: unknown, family?: number) =>
      err ? reject(err) : resolve(all ? address : { address, family }),
    );
  });
}

describe('checkUrl', () => {
  const policy = createAddressPolicy();

  it('returns the parsed URL of an allowed target', () => {
    expect(checkUrl('https://example.com/a?b=1', policy).href).toBe('https://example.com/a?b=1');
    expect(checkUrl('http://[2606:4700:4700::1111]:8080/', policy).hostname).toBe('[2606:4700:4700::1111]');
  });

  it.each([
    'http://10.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://0x7f.0.0.1/',
    'http://2130706433/',
    'https://169.254.169.254/',
  ])('refuses the literal address of %s with the field named', (url) => {
    expect(() => checkUrl(url, policy, 'targetUrl')).toThrow(ForbiddenAddressError);
    expect(() => checkUrl(url, policy, 'targetUrl')).toThrow(/^targetUrl: target not allowed: .*private, loopback/);
  });

  it('refuses other schemes, credentials and malformed URLs as invalid input, not as forbidden addresses', () => {
    for (const [url, message] of [
      ['ftp://example.com/', /only http and https/],
      ['http://user:pw@example.com/', /credentials in the URL/],
      ['not a url', /is not a valid URL/],
    ] as const) {
      let error: unknown;
      try {
        checkUrl(url, policy, 'targetUrl');
      } catch (err) {
        error = err;
      }
      expect(error, url).toBeInstanceOf(InvalidInputError);
      expect(error, url).not.toBeInstanceOf(ForbiddenAddressError);
      expect(error, url).toMatchObject({ status: 400, field: 'targetUrl', message: expect.stringMatching(message) });
    }
  });
});

describe('checkTarget', () => {
  it('lets a public name through, with its URL', async () => {
    const checked = await checkTarget('https://example.com/x', {
      resolve: answers(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']),
    });
    expect(checked.url.href).toBe('https://example.com/x');
  });

  it('refuses a name with any forbidden answer, even beside a public one (400, the field named)', async () => {
    const resolve = answers(['93.184.215.14', '10.1.2.3']);
    await expect(checkTarget('http://rebind.example/', { resolve, field: 'targetUrl' })).rejects.toBeInstanceOf(
      ForbiddenAddressError,
    );
    await expect(checkTarget('http://rebind.example/', { resolve, field: 'targetUrl' })).rejects.toMatchObject({
      status: 400,
      field: 'targetUrl',
      message: expect.stringMatching(/^targetUrl: target not allowed: rebind\.example resolves to 10\.1\.2\.3: /),
    });
  });

  it('refuses a literal without resolving it, and lets NETWORK_ALLOW exempt exactly what it names', async () => {
    const resolve: Resolve = async () => expect.unreachable('an IP literal is not resolved');
    await expect(checkTarget('http://127.0.0.1:9/', { resolve })).rejects.toBeInstanceOf(ForbiddenAddressError);
    expect((await checkTarget('http://127.0.0.1:9/', { resolve, allow: ['127.0.0.1/32'] })).url.port).toBe('9');
    await expect(checkTarget('http://127.0.0.2:9/', { resolve, allow: ['127.0.0.1/32'] })).rejects.toBeInstanceOf(
      ForbiddenAddressError,
    );
    await expect(checkTarget('http://[::1]:9/', { resolve, allow: ['127.0.0.1/32'] })).rejects.toBeInstanceOf(
      ForbiddenAddressError,
    );
  });

  it('answers a name that does not resolve as invalid input naming the field', async () => {
    const resolve: Resolve = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const refusal = checkTarget('http://nowhere.example/', { resolve, field: 'targetUrl' });
    await expect(refusal).rejects.toMatchObject({
      status: 400,
      field: 'targetUrl',
      message: 'targetUrl: nowhere.example does not resolve to an address',
    });
    await expect(refusal).rejects.not.toBeInstanceOf(ForbiddenAddressError);
  });

  describe('the lookup it hands on', () => {
    let server: net.Server;
    let connections = 0;
    beforeAll(async () => {
      server = net.createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it(
      'checks the name again when a socket connects: a name that answers differently then is refused before ' +
        'connecting',
      async () => {
        const { port } = server.address() as AddressInfo;
        // Public when checked, loopback when the socket asks: the rebinding the hook exists for.
        const checked = await checkTarget(`http://rebind.example:${port}/`, {
          field: 'targetUrl',
          resolve: answers(['93.184.215.14'], ['127.0.0.1']),
        });
        const socket = net.connect({ host: 'rebind.example', port, lookup: checked.lookup });
        const error = await new Promise<Error>((resolve) => socket.once('error', resolve));
        expect(error).toBeInstanceOf(ForbiddenAddressError);
        expect(error.message).toMatch(/^targetUrl: target not allowed: rebind\.example resolves to 127\.0\.0\.1/);
        expect(connections).toBe(0);
      },
    );
  });
});

describe('guardedLookup', () => {
  const policy = createAddressPolicy(['127.0.0.1/32']);

  it('answers the checked addresses, one or all', async () => {
    const lookup = guardedLookup(policy, answers(['127.0.0.1', '2606:4700:4700::1111']));
    expect(await lookUp(lookup, 'site.example', false)).toEqual({ address: '127.0.0.1', family: 4 });
    expect(await lookUp(lookup, 'site.example', true)).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ]);
  });

  it('refuses when any answer is forbidden, naming the field', async () => {
    const lookup = guardedLookup(policy, answers(['127.0.0.1', '10.0.0.1']), 'targetUrl');
    await expect(lookUp(lookup, 'site.example', true)).rejects.toMatchObject({
      name: 'ForbiddenAddressError',
      field: 'targetUrl',
      message: expect.stringMatching(/site\.example resolves to 10\.0\.0\.1/),
    });
  });

  it('fails like DNS when there is no answer, and passes resolver errors on', async () => {
    await expect(lookUp(guardedLookup(policy, answers([])), 'empty.example', false)).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    const failing: Resolve = async () => {
      throw Object.assign(new Error('queryA ESERVFAIL'), { code: 'ESERVFAIL' });
    };
    await expect(lookUp(guardedLookup(policy, failing), 'broken.example', false)).rejects.toMatchObject({
      code: 'ESERVFAIL',
    });
  });

  it('keeps a verified target to its proven addresses: a name that resolves elsewhere is refused', async () => {
    const now = await addressesOf('localhost'); // /etc/hosts: loopback, nothing leaves the machine
    expect(now.length).toBeGreaterThan(0);
    expect(await addressesOf('192.0.2.7')).toEqual(['192.0.2.7']);
    const pinned = (addresses: string[]) => loadTestResolve({ addresses }).resolve!;
    expect(await pinned(now)('localhost')).toEqual(now);
    await expect(pinned(['192.0.2.7'])('localhost')).rejects.toBeInstanceOf(ForbiddenAddressError);
    await expect(pinned(now.slice(1))('localhost')).rejects.toThrow(/now resolves to/);
    expect(loadTestResolve({})).toEqual({});
  });

  it("keeps a small unproven test to its start's addresses, whatever the name answers now, still guarded", async () => {
    // The name answers loopback now; the test started when it answered 192.0.2.7: that is where it goes.
    const { resolve } = loadTestResolve({ connectTo: ['192.0.2.7'], addresses: ['127.0.0.1'] });
    expect(await resolve!('localhost')).toEqual(['192.0.2.7']);
    // And the guard's lookup still judges what it answers (a private address stays refused).
    const privateOne = loadTestResolve({ connectTo: ['10.0.0.1'] }).resolve!;
    await expect(lookUp(guardedLookup(policy, privateOne), 'rebound.example', false)).rejects.toBeInstanceOf(
      ForbiddenAddressError,
    );
  });

  it('tells what a name resolved to when it was checked, and an address as its own', async () => {
    expect((await checkTarget('http://127.0.0.1:9/', { allow: ['127.0.0.1/32'] })).addresses).toEqual(['127.0.0.1']);
    const byName = await checkTarget('http://localhost:9/', {
      allow: ['127.0.0.0/8', '::1/128'],
      resolve: async () => ['127.0.0.1'],
    });
    expect(byName.addresses).toEqual(['127.0.0.1']);
  });
});
