// The load generator's HTTP/1.1 connection against raw loopback servers that answer in every framing.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Http1Connection } from '../../../../../domain/load/http/http1.ts';
import { requestBytes } from '../../../../../domain/load/http/request.ts';
import { guardedLookup } from '../../../../../lib/net/target-guard.ts';
import { createAddressPolicy } from '../../../../../lib/net/address-policy.ts';

const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/**
 * A server that answers each request (read up to its blank line) with the next of `answers`, `split` bytes at a time.
 */
async function rawServer(
  answers: string[],
  split = 0,
): Promise<{ url: URL; requests: string[]; connections: () => number }> {
  const requests: string[] = [];
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (let end = buffered.indexOf('\r\n\r\n'); end >= 0; end = buffered.indexOf('\r\n\r\n')) {
        requests.push(buffered.slice(0, end + 4));
        buffered = buffered.slice(end + 4);
        const answer = Buffer.from(answers[Math.min(requests.length - 1, answers.length - 1)]!, 'latin1');
        if (!split) socket.write(answer);
        else
          for (let i = 0; i < answer.length; i += split)
            setTimeout(() => socket.write(answer.subarray(i, i + split)), i);
        const http10 = answer.toString('latin1').startsWith('HTTP/1.0') && !answer.includes('keep-alive');
        if (answer.includes('Connection: close') || http10)
          setTimeout(() => socket.end(), split ? answer.length + 5 : 5);
      }
    });
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/path?q=1`),
    requests,
    connections: () => connections,
  };
}

function connection(url: URL, method = 'GET', body?: string) {
  const lookup = guardedLookup(createAddressPolicy(['127.0.0.1/32']));
  return new Http1Connection(
    { url, lookup, rejectUnauthorized: true, onSocket: () => {} },
    requestBytes({ url, method, headers: { 'x-a': 'b' }, body }),
    method === 'HEAD',
  );
}

const send = (c: Http1Connection) =>
  new Promise<{ status: number; error: Error | null }>((resolve) =>
    c.send((status, error) => resolve({ status, error })),
  );

const LENGTH = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello';
const CHUNKED =
  'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n ' +
  'world\r\n0\r\nX-Trailer: t\r\n\r\n';

describe('HTTP/1.1 load connection', () => {
  it.each([0, 1, 3])(
    'reads Content-Length and chunked answers on one kept-alive socket (split every %i bytes)',
    async (split) => {
      const server = await rawServer(
        [LENGTH, CHUNKED, 'HTTP/1.1 204 No Content\r\n\r\n', 'HTTP/1.1 503 Busy\r\ncontent-length: 0\r\n\r\n', LENGTH],
        split,
      );
      const c = connection(server.url);
      for (const status of [200, 201, 204, 503, 200]) expect(await send(c)).toEqual({ status, error: null });
      expect(server.connections()).toBe(1);
      expect(server.requests[0]).toBe(`GET /path?q=1 HTTP/1.1\r\nhost: ${server.url.host}\r\nx-a: b\r\n\r\n`);
      c.close();
    },
  );

  it('sends a body with its length, and reads a HEAD answer without one', async () => {
    const post = await rawServer([LENGTH]);
    const c = connection(post.url, 'POST', '{"a":1}');
    expect((await send(c)).status).toBe(200);
    expect(post.requests[0]).toContain('content-length: 7\r\n');
    c.close();
    const head = await rawServer(['HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n', LENGTH]);
    const h = connection(head.url, 'HEAD');
    expect((await send(h)).status).toBe(200);
    expect((await send(h)).status).toBe(200);
    expect(head.connections()).toBe(1);
    h.close();
  });

  it('reconnects after Connection: close and after an answer that ends with the connection', async () => {
    const server = await rawServer([
      'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok',
      'HTTP/1.0 200 OK\r\n\r\nuntil the end',
      LENGTH,
    ]);
    const c = connection(server.url);
    for (let i = 0; i < 3; i++) expect(await send(c)).toEqual({ status: 200, error: null });
    expect(server.connections()).toBe(3);
    c.close();
  });

  it("reads past interim answers, whose headers are not the answer's; keeps an HTTP/1.0 keep-alive", async () => {
    const server = await rawServer([
      // One write: the 103's headers (lower case: this server ends its socket after `Connection: close`) say
      // nothing of the connection or the body.
      'HTTP/1.1 103 Early Hints\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n' +
        'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello',
      'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok',
      LENGTH,
    ]);
    const c = connection(server.url);
    for (let i = 0; i < 3; i++) expect(await send(c)).toEqual({ status: 200, error: null });
    expect(server.connections()).toBe(1);
    c.close();
  });

  it('sends the next request at once after an answer that ended with the connection', async () => {
    const server = await rawServer([
      'HTTP/1.0 200 OK\r\n\r\nuntil the end',
      LENGTH,
      'HTTP/1.0 200 OK\r\n\r\nagain',
      LENGTH,
    ]);
    const c = connection(server.url);
    // The next send happens inside the completion callback, as the generator does.
    const statuses = await new Promise<Array<number | string>>((resolve) => {
      const seen: Array<number | string> = [];
      const next = () =>
        c.send((status, error) => {
          seen.push(error ? String((error as NodeJS.ErrnoException).code) : status);
          if (seen.length < 4) next();
          else resolve(seen);
        });
      next();
    });
    expect(statuses).toEqual([200, 200, 200, 200]);
    c.close();
  });

  it('refuses bad or endless chunk-size lines instead of looping or buffering', async () => {
    const negative = await rawServer(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-6\r\nxx']);
    expect(((await send(connection(negative.url))).error as NodeJS.ErrnoException).code).toBe('HPE_INVALID_CHUNK_SIZE');
    const endless = await rawServer([`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${'a'.repeat(20_000)}`]);
    expect(((await send(connection(endless.url))).error as NodeJS.ErrnoException).code).toBe(
      'HPE_CHUNK_EXTENSIONS_OVERFLOW',
    );
  });

  it('reports refused connections, resets and garbage as errors', async () => {
    const closed = await rawServer([LENGTH]);
    await new Promise((r) => servers.pop()!.close(r));
    const refused = await send(connection(closed.url));
    expect((refused.error as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    const garbage = await rawServer(['SSH-2.0-OpenSSH\r\n\r\n']);
    expect((await send(connection(garbage.url))).error?.message).toMatch(/not an HTTP\/1\.x answer/);
    const cut = await rawServer(['HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\nshort']);
    expect(((await send(connection(cut.url))).error as NodeJS.ErrnoException).code).toBe('ECONNRESET');
  });
});
