// A shard's generator over HTTP/2 (http2.ts) against loopback servers started here (h2 over TLS, h2c,
// and a TLS server offering only http/1.1), each counting what it receives by protocol: every answer
// counted as h2 and as many as the server saw; users sharing connections as streams; the server's
// stream limit; resets, a server without h2, a scenario's capture, the open model, the SSRF guard.
import hdr from 'hdr-histogram-js';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ShardGenerator, type ShardPlan } from '../../../../../domain/load/generator.ts';
import type { ScenarioStep, ShardTarget } from '../../../../../lib/jobs/load-test.ts';
import { ForbiddenAddressError } from '../../../../../lib/net/target-guard.ts';
import { startH2Target, type H2Target } from '../../../../fixtures/h2-target.ts';
import { startLoadTarget } from '../../../../fixtures/load-target.ts';

const LOOPBACK = ['127.0.0.1/32'];

function plan(
  url: string,
  o: {
    users?: number;
    ms?: number;
    rate?: number;
    streams?: number;
    target?: Partial<ShardTarget>;
    allow?: string[];
  } = {},
): ShardPlan {
  const startAt = Date.now();
  const users = o.users ?? 1;
  return {
    target: {
      url,
      method: 'GET',
      headers: { 'user-agent': 'netops-test' },
      insecureTls: true,
      httpVersion: '2',
      streamsPerConnection: o.streams ?? 1,
      ...o.target,
    },
    users,
    firstUser: 0,
    totalUsers: users,
    startAt,
    endAt: startAt + (o.ms ?? 1000),
    rampUpMs: 0,
    rate: o.rate ?? 0,
    requestTimeoutMs: 2000,
    allow: o.allow ?? LOOPBACK,
  };
}

/** A login whose token the next step sends (the fixture's /orders answers 401 to any other). */
const LOGIN_THEN_ORDERS: ScenarioStep[] = [
  { method: 'GET', path: '/login', headers: {}, capture: { token: '/token' } },
  { method: 'GET', path: '/orders', headers: { authorization: 'Bearer {{token}}' }, capture: {} },
];

const hex = (h: string) => Buffer.from(h, 'hex');
const run = async (p: ShardPlan) => (await ShardGenerator.create(p)).run();

describe('load generator over HTTP/2', () => {
  let site: H2Target;
  beforeAll(async () => {
    site = await startH2Target();
  });
  afterAll(() => site.close());
  beforeEach(() => site.reset());

  it.each([
    ['h2 over TLS', 'h2Url'],
    ['h2c', 'h2cUrl'],
  ] as const)(
    'answers every request over %s, as many as the server received, a connection per user by default',
    async (_, key) => {
      const result = await run(plan(`${site[key]}/`, { users: 4 }));
      expect(result.total).toBeGreaterThan(20);
      expect(result.errors).toEqual({});
      expect(result.statusCodes).toEqual({ 200: result.total });
      expect(result.protocols).toEqual({ h2: result.total });
      expect(site.requests).toEqual({ h2: result.total });
      expect(site.sessions).toBe(4);
      expect(result.http2).toEqual({ connections: 4, serverMaxStreams: null }); // Node's server sets no limit
      // Frames both ways are counted on the sockets.
      expect(result.bytesSent).toBeGreaterThan(result.total * 10);
      expect(result.bytesReceived).toBeGreaterThan(result.total * 10);
    },
  );

  it('shares connections: 50 users at 10 streams per connection open 5, at most 10 streams each', async () => {
    const result = await run(plan(`${site.h2cUrl}/delay/5`, { users: 50, streams: 10 }));
    expect(result.errors).toEqual({});
    expect(result.total).toBeGreaterThan(50);
    expect(site.sessions).toBe(5);
    expect(site.connections.h2c).toBe(5);
    expect(site.maxOpenStreams).toBe(10);
    expect(result.http2?.connections).toBe(5);
  });

  it(
    'keeps to the server’s SETTINGS_MAX_CONCURRENT_STREAMS: ' + 'users beyond it wait, and the limit is reported',
    async () => {
      const strict = await startH2Target({ maxConcurrentStreams: 3 });
      try {
        const result = await run(plan(`${strict.h2Url}/delay/5`, { users: 8, streams: 8 }));
        expect(result.errors).toEqual({});
        expect(result.total).toBeGreaterThan(8);
        expect(strict.sessions).toBe(1);
        expect(strict.maxOpenStreams).toBe(3);
        expect(result.http2).toEqual({ connections: 1, serverMaxStreams: 3 });
      } finally {
        await strict.close();
      }
    },
  );

  it('counts RST_STREAM as refused_stream or stream_reset with the code, and goes on', async () => {
    const refused = await run(plan(`${site.h2cUrl}/reset/7`, { users: 2, ms: 300 }));
    expect(refused.total).toBeGreaterThan(0);
    expect(refused.errors).toEqual({ refused_stream: refused.total });
    const reset = await run(plan(`${site.h2Url}/reset/2`, { users: 2, ms: 300, streams: 2 }));
    expect(reset.total).toBeGreaterThan(0);
    expect(reset.errors).toEqual({ 'stream_reset:INTERNAL_ERROR': reset.total });
    expect(reset.failed).toBe(reset.total);
    expect(reset.http2?.connections).toBe(1); // a reset stream leaves its connection open
  });

  it('fails with http2_not_offered against a server that offers only http/1.1, sending nothing', async () => {
    const result = await run(plan(`${site.http1Url}/`, { users: 2, ms: 300 }));
    // No request was sent: each attempt is a connection error, none a request the target got.
    expect(result.total).toBe(0);
    expect(result.connectionErrors).toBeGreaterThan(0);
    expect(result.errors).toEqual({ http2_not_offered: result.connectionErrors });
    expect(site.connections.http1).toBeGreaterThan(0);
    expect(site.requests).toEqual({});
  });

  it('runs a scenario over h2: a login’s token captured into the next step’s header', async () => {
    const result = await run(
      plan(`${site.h2Url}/`, {
        users: 3,
        streams: 3,
        target: {
          steps: LOGIN_THEN_ORDERS,
        },
      }),
    );
    expect(result.errors).toEqual({});
    const [login, orders] = result.steps!;
    expect(login!.requests).toBeGreaterThan(5);
    expect(login!.captureFailures).toBe(0);
    expect(orders!.statusCodes).toEqual({ 200: orders!.requests });
    expect(site.paths['/orders']).toEqual({ h2: orders!.requests });
  });

  it('sends bodies, and keeps an open model’s arrival rate', async () => {
    const result = await run(
      plan(`${site.h2cUrl}/`, {
        users: 5,
        streams: 5,
        rate: 200,
        ms: 1000,
        target: { method: 'POST', body: '{"a":1}' },
      }),
    );
    expect(result.errors).toEqual({});
    expect(result.total).toBeGreaterThanOrEqual(190);
    expect(result.total).toBeLessThanOrEqual(200);
    expect(site.requests).toEqual({ h2: result.total });
  });

  it('times the phases: connect and TLS for the streams that waited for their connection, none after', async () => {
    const result = await run(plan(`${site.h2Url}/delay/10`, { users: 2, streams: 2, ms: 500 }));
    expect(result.errors).toEqual({});
    const phase = (p: keyof NonNullable<typeof result.phases>) =>
      hdr.decodeFromCompressedBase64(result.phases![p], 64, false);
    // Both users' first streams waited for the one connection; the rest opened nothing.
    expect(phase('tls').totalCount).toBe(result.total);
    expect(phase('tls').getValueAtPercentile(100)).toBeGreaterThan(0);
    expect(phase('tls').getValueAtPercentile(50)).toBe(0);
    expect(phase('connect').getValueAtPercentile(100)).toBeGreaterThan(0);
    expect(phase('ttfb').getValueAtPercentile(50)).toBeGreaterThanOrEqual(10_000);
  });

  it(
    'reads answers in many frames and padded ones, ' + 'headers in CONTINUATION frames, and acknowledges PINGs',
    async () => {
      const padded = await startH2Target({ padding: true });
      try {
        for (const [url, kind] of [
          [`${site.h2cUrl}/big/1000000`, 'large'],
          [`${padded.h2cUrl}/big/100000`, 'padded'],
          [`${padded.h2Url}/long-header/40000`, 'long header'],
          [`${site.h2Url}/ping`, 'ping'],
        ] as const) {
          const result = await run(plan(url, { users: 2, ms: 500, streams: 2 }));
          expect(result.errors, kind).toEqual({});
          expect(result.statusCodes, kind).toEqual({ 200: result.total });
          expect(result.total, kind).toBeGreaterThan(2);
        }
        // Padding is not the body: the login's JSON parses, and its token is the next step's.
        const scenario = await run(
          plan(`${padded.h2cUrl}/`, {
            users: 2,
            ms: 500,
            target: {
              steps: LOGIN_THEN_ORDERS,
            },
          }),
        );
        expect(scenario.errors).toEqual({});
        expect(scenario.steps![0]!.captureFailures).toBe(0);
        expect(scenario.steps![1]!.statusCodes).toEqual({ 200: scenario.steps![1]!.requests });
      } finally {
        await padded.close();
      }
    },
  );

  it('sends a body larger than the server’s window, waiting for its WINDOW_UPDATEs', async () => {
    const body = 'x'.repeat(200_000);
    const result = await run(
      plan(`${site.h2cUrl}/echo-length`, { users: 2, streams: 2, ms: 500, target: { method: 'POST', body } }),
    );
    expect(result.errors).toEqual({});
    expect(result.total).toBeGreaterThan(2);
    expect(site.lengths).toEqual(Array(result.total).fill(200_000));
  });

  it('sends the streams a GOAWAY left unprocessed again on a new connection, counting them once', async () => {
    // Each connection answers its first stream and sends GOAWAY for its second.
    const result = await run(plan(`${site.h2cUrl}/goaway`, { users: 1, ms: 300 }));
    expect(result.total).toBeGreaterThan(3);
    expect(result.errors).toEqual({});
    expect(result.statusCodes).toEqual({ 200: result.total });
    expect(site.paths['/goaway']?.h2).toBeGreaterThanOrEqual(2 * result.total - 1); // each sent twice but the last
    expect(site.sessions).toBe(result.http2?.connections);
    expect(result.http2!.connections - result.total).toBeGreaterThanOrEqual(0);
    expect(result.http2!.connections - result.total).toBeLessThanOrEqual(1);
  });

  it('reads frames cut anywhere across reads: a server that writes its answers three bytes at a time', async () => {
    // SETTINGS first; then for each HEADERS frame of ours: :status 200 (static index 8) and a DATA frame "hello".
    const answer = (stream: number) => {
      const id = Buffer.alloc(4);
      id.writeUInt32BE(stream);
      // HEADERS (1 byte, END_HEADERS), then DATA (5 bytes, END_STREAM).
      return Buffer.concat([hex('0000010104'), id, hex('88'), hex('0000050001'), id, Buffer.from('hello')]);
    };
    const server = net.createServer((socket) => {
      socket.setNoDelay(true);
      socket.on('error', () => {});
      let out = hex('000000040000000000');
      const drip = () => {
        if (out.length === 0 || socket.destroyed) return;
        socket.write(out.subarray(0, 3));
        out = out.subarray(3);
        setTimeout(drip, 1);
      };
      let read = Buffer.alloc(0);
      let prefaced = false;
      socket.on('data', (chunk: Buffer) => {
        read = Buffer.concat([read, chunk]);
        if (!prefaced && read.length >= 24) {
          read = read.subarray(24);
          prefaced = true;
        }
        while (prefaced && read.length >= 9 && read.length >= 9 + read.readUIntBE(0, 3)) {
          const [length, type, stream] = [read.readUIntBE(0, 3), read[3], read.readUInt32BE(5) & 0x7fffffff];
          read = read.subarray(9 + length);
          if (type === 1) out = Buffer.concat([out, answer(stream)]);
        }
        drip();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const result = await run(
        plan(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { users: 2, ms: 500 }),
      );
      expect(result.errors).toEqual({});
      expect(result.total).toBeGreaterThan(2);
      expect(result.statusCodes).toEqual({ 200: result.total });
    } finally {
      server.close();
    }
  });

  it('survives servers that break the protocol: short frames, a zero frame size, HTTP/1.1 answering h2c', async () => {
    const settings = Buffer.from('000000040000000000', 'hex');
    const broken = {
      'a GOAWAY of 4 bytes': Buffer.concat([settings, Buffer.from('00000407000000000000000000', 'hex')]),
      'a SETTINGS_MAX_FRAME_SIZE of 0': Buffer.from('0000060400000000000005' + '00000000', 'hex'),
      'a WINDOW_UPDATE of 2 bytes': Buffer.concat([settings, Buffer.from('000002080000000000' + '0001', 'hex')]),
      'a PING of 3 bytes': Buffer.concat([settings, Buffer.from('000003060000000000' + '000000', 'hex')]),
      // PADDED and END_HEADERS on stream 1, no pad length to read: the last frame of its read.
      'a padded HEADERS of 0 bytes': Buffer.concat([settings, Buffer.from('000000010c00000001', 'hex')]),
      'a HEADERS with PRIORITY of 2 bytes': Buffer.concat([
        settings,
        Buffer.from('000002012400000001' + '0000', 'hex'),
      ]),
    };
    for (const [what, bytes] of Object.entries(broken)) {
      const server = net.createServer((socket) => {
        socket.on('error', () => {});
        socket.once('data', () => socket.write(bytes));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      try {
        const result = await run(plan(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { ms: 200 }));
        // A server that breaks the protocol before any stream opened gives connection errors, else failed requests.
        expect(result.total + result.connectionErrors!, what).toBeGreaterThan(0);
        expect(Object.keys(result.errors), what).toEqual(['http2_protocol_error']);
      } finally {
        server.close();
      }
    }
    const http1 = await startLoadTarget();
    try {
      const result = await run(plan(`${http1.url}/`, { ms: 200 }));
      expect(result.errors).toEqual({ http2_not_offered: result.connectionErrors });
    } finally {
      await http1.close();
    }
  });

  it('refuses a private target before any connection, as over HTTP/1.1', async () => {
    await expect(ShardGenerator.create(plan('https://10.0.0.1/', { allow: [] }))).rejects.toBeInstanceOf(
      ForbiddenAddressError,
    );
    const byName = await run(plan(`${site.h2cUrl.replace('127.0.0.1', 'localhost')}/`, { allow: [], ms: 300 }));
    expect(byName.total).toBe(0);
    expect(byName.connectionErrors).toBeGreaterThan(0);
    expect(byName.errors).toEqual({ ForbiddenAddressError: byName.connectionErrors });
    expect(site.connections.h2c).toBe(0);
  });
});
