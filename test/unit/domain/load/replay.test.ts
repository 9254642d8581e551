// Replay as load in a shard's generator: the recorded requests sent as they were (method, path,
// headers, body byte for byte) to a loopback server started here, at their recorded times divided by
// the speed or each user's sequence in order at speed 0, counted per distinct request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShardGenerator, type ShardPlan } from '../../../../domain/load/generator.ts';
import { loopPeriodMs, MAX_REPLAY_NAMES, OTHER_REQUESTS, Replay, replayNames } from '../../../../domain/load/replay.ts';
import { type ReplayRequest, splitUsers, usersKeptTogether } from '../../../../lib/jobs/load-test.ts';
import { addEncodedHistogram, newHistogram } from '../../../../domain/load/metrics/histogram.ts';
import { StepStats } from '../../../../domain/load/scenario.ts';
import { shardPlan } from '../../../support/shard-plan.ts';
import { type Received, type Receiver, startReceiver } from '../../../support/receiver.ts';

describe('replay names and timing', () => {
  it('counts each distinct method and path (query aside) under one name, at most 50, the rest together', () => {
    const requests = [
      { method: 'GET', path: '/a?x=1' },
      { method: 'POST', path: '/a' },
      { method: 'GET', path: '/a?x=2' },
    ];
    expect(replayNames(requests)).toEqual({ names: ['GET /a', 'POST /a'], index: [0, 1, 0] });
    const many = Array.from({ length: MAX_REPLAY_NAMES + 5 }, (_, i) => ({ method: 'GET', path: `/p${i}` }));
    const { names, index } = replayNames(many);
    expect(names).toHaveLength(MAX_REPLAY_NAMES + 1);
    expect(names.at(-1)).toBe(OTHER_REQUESTS);
    expect(new Set(index.slice(MAX_REPLAY_NAMES))).toEqual(new Set([MAX_REPLAY_NAMES]));
  });

  it('counts each step at every report, and encodes its histogram only in a fresh one (the last one between)', () => {
    const stats = new StepStats(['GET /a', 'GET /b']);
    const total = (encoded: string) => {
      const h = newHistogram();
      addEncodedHistogram(h, encoded);
      return h.totalCount;
    };
    stats.record(0, 1000, 200, false);
    const between = stats.snapshot(false);
    expect(between.map((s) => s.requests)).toEqual([1, 0]);
    expect(between.map((s) => total(s.histogram))).toEqual([0, 0]); // not encoded yet: an empty one stands in
    expect(stats.snapshot().map((s) => total(s.histogram))).toEqual([1, 0]);
    stats.record(0, 2000, 500, true);
    const later = stats.snapshot(false);
    expect(later[0]).toMatchObject({ requests: 2, failed: 1, statusCodes: { 200: 1, 500: 1 } });
    expect(total(later[0]!.histogram)).toBe(1); // as of the last fresh report
    expect(total(stats.snapshot()[0]!.histogram)).toBe(2);
  });

  it('loops after the recorded span and one mean gap, never under 1 ms a request', () => {
    expect(loopPeriodMs([0, 100, 400])).toBe(600);
    expect(loopPeriodMs([0])).toBe(1000);
    expect(loopPeriodMs([5, 5, 5])).toBe(3);
  });

  it('makes each request due at its recorded time / speed, the sequence again after its period with a loop', () => {
    const requests: ReplayRequest[] = [1000, 1100, 1250, 1400, 2000].map((at, i) => ({
      at,
      method: 'GET',
      path: `/${i}`,
      headers: {},
    }));
    const looped = new Replay(new URL('http://127.0.0.1/'), { speed: 10, loop: true, requests }, (spec) => spec);
    // The period is the span (1000) plus the mean gap (250), / 10.
    expect(Array.from({ length: 10 }, (_, k) => looped.dueAt(k))).toEqual([
      0, 10, 25, 40, 100, 125, 135, 150, 165, 225,
    ]);
    const once = new Replay(new URL('http://127.0.0.1/'), { speed: 1, loop: false, requests }, (spec) => spec);
    expect(once.dueAt(4)).toBe(1000);
    expect(once.dueAt(5)).toBe(Infinity);
  });

  it('keeps a timed replay in one part (one scheduler), a replay at speed 0 split by users', () => {
    const target = { url: 'http://127.0.0.1/', method: 'GET', headers: {} };
    const share = { users: 10, firstUser: 0, rate: 0 };
    const timed = { ...target, replay: { speed: 2, loop: false } };
    expect(splitUsers(share, 4, usersKeptTogether(timed)).map((p) => p.users)).toEqual([10]);
    const paced = { ...target, replay: { speed: 0, loop: false } };
    expect(splitUsers(share, 4, usersKeptTogether(paced)).map((p) => p.users)).toEqual([3, 3, 2, 2]);
  });
});

describe('replay in the shard generator', () => {
  const arrivals: Received[] = [];
  let server: Receiver;
  let origin = '';
  beforeAll(async () => {
    server = await startReceiver('127.0.0.1', arrivals, (got, res) =>
      res.writeHead(got.url.startsWith('/missing') ? 404 : 200).end('ok'),
    );
    origin = server.url;
  });
  afterAll(() => server.close());

  const binary = Buffer.from([0, 255, 13, 10, 128, 1]);
  const sequence: ReplayRequest[] = [
    { at: 1000, method: 'POST', path: '/orders?src=a', headers: { 'x-sig': 'one' }, body: binary.toString('base64') },
    { at: 1100, method: 'GET', path: '/orders/1', headers: {} },
    { at: 1300, method: 'GET', path: '/missing', headers: {} },
    { at: 1350, method: 'POST', path: '/orders?src=b', headers: { 'x-sig': 'two' }, body: 'e30=' },
  ];

  const plan = (users: number, speed: number, loop: boolean, durationMs: number): ShardPlan =>
    shardPlan(`${origin}/`, users, durationMs, {
      target: { url: `${origin}/`, method: 'GET', headers: {}, replay: { speed, loop } },
      replay: { speed, loop, requests: sequence },
      requestTimeoutMs: 1000,
    });

  it('sends each request at its recorded time / speed, in order, byte for byte, once without a loop', async () => {
    arrivals.length = 0;
    const p = plan(2, 2, false, 5000);
    const started = performance.now();
    const snap = await (await ShardGenerator.create(p)).run();
    arrivals.sort((x, y) => x.at - y.at);
    // The sequence lasts 350 ms recorded, 175 at speed 2: the shard ends then, not with its window.
    expect(performance.now() - started).toBeLessThan(2000);
    expect(arrivals.map((a) => `${a.method} ${a.url}`)).toEqual([
      'POST /orders?src=a',
      'GET /orders/1',
      'GET /missing',
      'POST /orders?src=b',
    ]);
    expect(arrivals[0]!.body.equals(binary)).toBe(true);
    expect(arrivals[0]!.headers['x-sig']).toBe('one');
    expect(arrivals[3]!.body.toString()).toBe('{}');
    const offsets = arrivals.map((a) => a.at - p.startAt);
    for (const [i, at] of [0, 50, 150, 175].entries()) expect(Math.abs(offsets[i]! - at)).toBeLessThan(30);
    expect(snap.total).toBe(4);
    expect(snap.steps?.map((s) => [s.name, s.requests, s.failed])).toEqual([
      ['POST /orders', 2, 0],
      ['GET /orders/1', 1, 0],
      ['GET /missing', 1, 1],
    ]);
  });

  it('at speed 0 each user sends the sequence in order, again and again with a loop', async () => {
    arrivals.length = 0;
    const once = await (await ShardGenerator.create(plan(3, 0, false, 5000))).run();
    expect(once.total).toBe(12);
    expect(arrivals.filter((a) => a.url === '/missing')).toHaveLength(3);
    arrivals.length = 0;
    const looped = await (await ShardGenerator.create(plan(2, 0, true, 600))).run();
    expect(looped.total).toBeGreaterThan(8);
    const names = Object.fromEntries(looped.steps!.map((s) => [s.name, s.requests]));
    // Each user's requests in sequence order: the POSTs are half, one user at most a pass ahead of the other.
    expect(Math.abs(names['POST /orders']! - 2 * names['GET /orders/1']!)).toBeLessThanOrEqual(4);
  });

  it('keeps every request on the target: a path that looks like a host is a path', async () => {
    arrivals.length = 0;
    const p = shardPlan(`${origin}/`, 1, 2000, {
      target: { url: `${origin}/`, method: 'GET', headers: {}, replay: { speed: 0, loop: false } },
      replay: { speed: 0, loop: false, requests: [{ at: 0, method: 'GET', path: '//evil.example/x', headers: {} }] },
    });
    expect((await (await ShardGenerator.create(p)).run()).total).toBe(1);
    expect(arrivals.map((a) => [a.url, a.headers.host])).toEqual([['//evil.example/x', new URL(origin).host]]);
  });

  it("puts the test's own headers on every request, over the recorded ones of the same name", async () => {
    arrivals.length = 0;
    const own = { authorization: 'Bearer own-token', 'x-sig': 'test' };
    const p = shardPlan(`${origin}/`, 1, 2000, {
      target: { url: `${origin}/`, method: 'GET', headers: {}, replay: { speed: 0, loop: false, headers: own } },
      replay: { speed: 0, loop: false, requests: sequence, headers: own },
    });
    expect((await (await ShardGenerator.create(p)).run()).total).toBe(4);
    expect(arrivals.map((a) => [a.headers.authorization, a.headers['x-sig']])).toEqual(
      Array.from({ length: 4 }, () => ['Bearer own-token', 'test']),
    );
  });
});
