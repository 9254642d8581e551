// Replay as load: a webhook's captures, or a HAR's entries, sent to a loopback target started here
// that logs what arrives and when. At speed 10, 200 captures arrive in their order with their recorded
// gaps divided by 10; a HAR replayed at speed 0 in a loop is broken down per request; the guard
// refuses a HAR aimed at a private address before any connection; bad replays are refused naming
// the field, a sequence past its headers' bound (the test's own on every request) among them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, networkApi, targets } from '../support/client.ts';
import { loadTestSuite } from '../support/load-tests.ts';
import { type Received, type Receiver, startReceiver } from '../support/receiver.ts';

/** A deterministic gap in ms for capture i: 10 to 60. */
const gapOf = (i: number) => 10 + ((i * 37) % 51);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A pause of the receiving process's event loop longer than this may have stamped an arrival late. */
const RECEIVER_PAUSE_MS = 4;

describe.each(targets())('load tests replaying recorded requests ($name)', (target) => {
  const { account, start, waitFor, results } = loadTestSuite(target);
  const arrivals: Received[] = [];
  let sink: Receiver;
  let origin = '';
  beforeAll(async () => {
    sink = await startReceiver('127.0.0.1', arrivals, (got, res) =>
      res.writeHead(got.url.includes('/gone') ? 404 : 200, { 'content-type': 'application/json' }).end('{}'),
    );
    origin = sink.url;
  });
  afterAll(() => sink.close());
  const api = networkApi(target, account);

  // Tried up to three times: a pause of this shared machine (two cores, another suite and both
  // services running) can delay a gap by tens of ms once; a wrong schedule fails every try.
  it('replays 200 captures at speed 10: in order, ' +
    'each gap the recorded one / 10 (within 10 ms + 10 %), byte for byte', {
    timeout: 90_000,
    retry: 2,
  }, async () => {
    const webhook = (await api('POST', 'my-webhook-create', {})).body;
    for (let i = 0; i < 200; i++) {
      const sent = await fetch(`${webhook.webhook_url}/events/${i}?n=${i}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-event': String(i) },
        body: JSON.stringify({ n: i, text: 'é' }),
      });
      expect(sent.status).toBe(200);
      await sleep(gapOf(i));
    }
    const listed = (await api('GET', `my-webhook-requests?webhook_id=${webhook.webhook_id}&limit=500`)).body.data;
    expect(listed.total).toBe(200);
    const recorded = (listed.requests as Array<{ created_at: string; path: string }>)
      .map((r) => ({ at: Date.parse(r.created_at), n: Number(r.path.split('/').at(-1)) }))
      .sort((a, b) => a.at - b.at || a.n - b.n);

    arrivals.length = 0;
    const started = await start({ targetUrl: `${origin}/sink`, replay: { webhook_id: webhook.webhook_id, speed: 10 } });
    expect(started.status, started.text).toBe(202);
    expect(started.body.config).toMatchObject({
      target_url: `${origin}/sink`,
      http_method: 'REPLAY',
      concurrent_users: 10,
      replay: {
        source: 'webhook',
        webhook_id: webhook.webhook_id,
        requests: 200,
        distinct_requests: 200,
        speed: 10,
        loop: false,
      },
    });
    // The recording lasts about 7 s: 0.7 s at speed 10, and the test's length is that plus time for the answers.
    expect(started.body.config.test_duration).toBe(
      Math.max(10, Math.ceil((recorded.at(-1)!.at - recorded[0]!.at) / 10_000) + 10),
    );
    // Nothing asked of the service while the requests arrive (a status read is work for it, Temporal
    // and the database on this shared machine): the status once all 200 have come, or 30 s have passed.
    // This process's own pauses meanwhile (another suite and both services share two cores): an arrival
    // handled just after one was stamped late by this receiver, whatever the sender did.
    const ticks: number[] = [];
    const watch = setInterval(() => ticks.push(performance.timeOrigin + performance.now()), 1);
    for (const until = Date.now() + 30_000; arrivals.length < 200 && Date.now() < until; ) await sleep(50);
    clearInterval(watch);
    const pauseEnds = ticks.filter((t, i) => i > 0 && t - ticks[i - 1]! > RECEIVER_PAUSE_MS);
    const done = await waitFor(started.body.test_id, (b) => b.status === 'completed', 60_000);
    expect(done.status).toBe('completed');

    // Every capture arrived once; when, by the recorded order.
    expect(arrivals.map((a) => a.url).sort()).toEqual(recorded.map((r) => `/sink/events/${r.n}?n=${r.n}`).sort());
    const at = new Map(arrivals.map((a) => [Number(/events\/(\d+)/.exec(a.url)![1]), a]));
    const arrived = recorded.map((r) => at.get(r.n)!);
    for (const [i, a] of arrived.entries()) {
      const n = recorded[i]!.n;
      expect(a.method).toBe('POST');
      expect(a.headers['x-event']).toBe(String(n));
      expect(a.headers['content-type']).toBe('application/json');
      expect(a.body.equals(Buffer.from(JSON.stringify({ n, text: 'é' })))).toBe(true);
    }
    // In order: none arrived before the one recorded before it, but for requests sent within the same
    // millisecond, each on its own connection, whose order no two connections keep; and each gap the
    // recorded one / 10, within 10 ms + 10 %: every gap this receiver could time (none of its own
    // pauses ended between the two arrivals), at least half of them.
    const misses: string[] = [];
    let untimed = 0;
    for (let i = 1; i < recorded.length; i++) {
      const [from, to] = [arrived[i - 1]!.at, arrived[i]!.at];
      if (pauseEnds.some((end) => end >= Math.min(from, to) - 1 && end <= Math.max(from, to) + 1)) {
        untimed += 1;
        continue;
      }
      const want = (recorded[i]!.at - recorded[i - 1]!.at) / 10;
      const got = to - from;
      if (got < -1) misses.push(`#${i} arrived ${-got.toFixed(1)} ms before #${i - 1}`);
      if (Math.abs(got - want) > 10 + want * 0.1) misses.push(`#${i}: ${got.toFixed(1)} ms for ${want} ms`);
    }
    expect(misses).toEqual([]);
    expect(untimed, 'gaps this receiver could not time (it paused)').toBeLessThanOrEqual(100);

    const res = (await results(started.body.test_id)).body;
    expect(res.results.total_requests).toBe(200);
    // Per distinct request (method and path): 50 names, then the rest together.
    expect(res.results.steps).toHaveLength(51);
    expect(res.results.steps.reduce((n: number, s: { requests: number }) => n + s.requests, 0)).toBe(200);
    expect(res.results.steps[0]).toMatchObject({ name: `POST /sink/events/${recorded[0]!.n}`, requests: 1 });
    expect(res.results.steps.at(-1)).toMatchObject({ name: 'other requests', requests: 150 });
  });

  const harOf = (entries: Array<{ method: string; url: string; body?: string; headers?: Record<string, string> }>) => ({
    log: {
      version: '1.2',
      creator: { name: 'test', version: '1' },
      entries: entries.map((e, i) => ({
        startedDateTime: new Date(Date.UTC(2026, 10, 27, 10, 0, 0, i * 100)).toISOString(),
        time: 12,
        request: {
          method: e.method,
          url: e.url,
          httpVersion: 'HTTP/2',
          headers: [
            { name: ':authority', value: 'example.test' },
            { name: 'Accept', value: 'application/json' },
            { name: 'Connection', value: 'keep-alive' },
            ...Object.entries(e.headers ?? {}).map(([name, value]) => ({ name, value })),
          ],
          queryString: [],
          cookies: [],
          headersSize: -1,
          bodySize: e.body?.length ?? 0,
          ...(e.body ? { postData: { mimeType: 'application/json', text: e.body } } : {}),
        },
        response: { status: 200 },
        _initiator: { type: 'script' },
      })),
    },
  });

  it('replays a HAR of 5 requests at speed 0 in a loop for 10 s: results per request', {
    timeout: 60_000,
  }, async () => {
    arrivals.length = 0;
    const har = harOf([
      { method: 'GET', url: `${origin}/app/` },
      { method: 'POST', url: `${origin}/app/api/cart`, body: '{"sku":"a-1"}', headers: { 'X-Session': 's1' } },
      { method: 'GET', url: `${origin}/app/api/cart?fresh=1` },
      { method: 'PUT', url: `${origin}/app/api/cart/1`, body: '{"qty":2}' },
      { method: 'GET', url: `${origin}/app/gone` },
    ]);
    // The test's credentials reach the target on every request (from the workflow's input: the stored
    // sequence holds none of them).
    const started = await start({
      replay: { har, speed: 0, loop: true },
      concurrentUsers: 2,
      testDuration: 10,
      authType: 'bearer',
      authToken: 'replay-token',
    });
    expect(started.status, started.text).toBe(202);
    expect(started.body.config).toMatchObject({
      target_url: origin,
      concurrent_users: 2,
      test_duration: 10,
      replay: { source: 'har', requests: 5, distinct_requests: 5, speed: 0, loop: true, span_ms: 400 },
    });
    await waitFor(started.body.test_id, (b) => b.status === 'completed', 40_000);
    const res = (await results(started.body.test_id)).body.results;
    const names = res.steps.map((s: { name: string }) => s.name);
    expect(names).toEqual([
      'GET /app/',
      'POST /app/api/cart',
      'GET /app/api/cart',
      'PUT /app/api/cart/1',
      'GET /app/gone',
    ]);
    const counts = res.steps.map((s: { requests: number }) => s.requests);
    // Each user sends them in order, again and again: every request as often as the others, give or take a pass each.
    for (const c of counts) expect(Math.abs(c - counts[0])).toBeLessThanOrEqual(2);
    expect(counts[0]).toBeGreaterThan(20);
    expect(res.steps[4]).toMatchObject({ failed_requests: counts[4], status_codes: { '404': counts[4] } });
    expect(res.steps[1]).toMatchObject({ failed_requests: 0, status_codes: { '200': counts[1] } });
    expect(res.total_requests).toBe(counts.reduce((n: number, c: number) => n + c, 0));
    const post = arrivals.find((a) => a.method === 'POST')!;
    expect(post.url).toBe('/app/api/cart');
    expect(post.body.toString()).toBe('{"sku":"a-1"}');
    expect(post.headers).toMatchObject({
      'x-session': 's1',
      accept: 'application/json',
      'content-type': 'application/json',
    });
    expect(arrivals.find((a) => a.url === '/app/api/cart?fresh=1')).toBeDefined();
    expect(arrivals.filter((a) => a.headers.authorization !== 'Bearer replay-token')).toEqual([]);
  });

  it(
    'refuses a HAR aimed at a private address (the guard, before any connection), ' +
      'and bad replays naming the field',
    async () => {
      const refused = await start({
        replay: { har: harOf([{ method: 'GET', url: 'http://10.0.0.1/admin' }]), speed: 0 },
      });
      expectErrorShape(refused, 400);
      expect(refused.body.message).toMatch(/^replay\.har\.log\.entries\.0\.request\.url: target not allowed/);
      // Entries on two origins go to one only when targetUrl says where.
      const two = await start({
        replay: {
          har: harOf([
            { method: 'GET', url: `${origin}/a` },
            { method: 'GET', url: 'http://169.254.169.254/latest/meta-data/' },
          ]),
        },
      });
      expectErrorShape(two, 400);
      expect(two.body.message).toContain(
        `replay.har.log.entries.1.request.url: is on http://169.254.169.254, not ${origin}`,
      );
      const webhook = (await api('POST', 'my-webhook-create', {})).body;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ targetUrl: origin, replay: { speed: 1 } }, 'replay: must give either webhook_id (your captures) or har'],
        [
          { targetUrl: origin, replay: { webhook_id: webhook.webhook_id, colour: 1 } },
          'replay.colour: is not a field of this body',
        ],
        [
          { targetUrl: origin, httpMethod: 'GET', replay: { webhook_id: webhook.webhook_id } },
          'httpMethod: is not given with replay',
        ],
        [{ replay: { webhook_id: webhook.webhook_id } }, 'targetUrl: is required with a replay of captures'],
        [
          { targetUrl: origin, replay: { webhook_id: webhook.webhook_id, loop: true } },
          'testDuration: is required with replay.loop',
        ],
        [
          { targetUrl: origin, replay: { webhook_id: webhook.webhook_id, speed: 1001 } },
          'replay.speed: must be 0, or from 0.01 to 1000',
        ],
        [
          { targetUrl: origin, replay: { webhook_id: webhook.webhook_id, speed: 2 }, rampUpTime: 5 },
          'rampUpTime: is for replay at speed 0',
        ],
        [
          { targetUrl: origin, replay: { webhook_id: webhook.webhook_id }, requestsPerSecond: 5 },
          'requestsPerSecond: is not given with replay',
        ],
        [
          { targetUrl: origin, replay: { webhook_id: webhook.webhook_id, filter: { q: '' } } },
          'replay.filter.q: must not be empty',
        ],
        [{ targetUrl: origin, replay: { har: { log: {} } } }, 'replay.har.log.entries'],
        [
          { replay: { har: { log: { entries: [{ startedDateTime: 'x', request: { url: 'nope' } }] } } } },
          'replay.har.log.entries.0',
        ],
        [
          { replay: { har: harOf([{ method: 'TRACE', url: `${origin}/` }]) } },
          'replay.har.log.entries.0.request.method: must be one of',
        ],
        [{ targetUrl: origin, replay: { webhook_id: webhook.webhook_id } }, 'replay: webhook'],
        // The test's own headers go on each of 10,000 requests: 11 MB of headers, past the 10 MiB a replay holds.
        [
          {
            replay: {
              har: harOf(Array.from({ length: 10_000 }, () => ({ method: 'GET', url: `${origin}/h` }))),
              speed: 0,
            },
            testDuration: 10,
            headers: { 'x-own': 'v'.repeat(1_100) },
          },
          "replay: the requests' headers come to",
        ],
        [{ targetUrl: origin, replay: { webhook_id: webhook.webhook_id, ids: [1] } }, 'replay.ids: no capture 1'],
      ];
      for (const [body, message] of cases) {
        const reply = await start(body);
        expectErrorShape(reply, 400);
        expect(reply.body.message, JSON.stringify(body)).toContain(message);
      }
      const foreign = await start({ targetUrl: origin, replay: { webhook_id: 'no-such-webhook' } });
      expectErrorShape(foreign, 404);
    },
  );

  it('takes a HAR beyond the usual 1 MB body, and refuses one past 10 MB with 413', { timeout: 60_000 }, async () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const two = await start({
      replay: { har: harOf([{ method: 'POST', url: `${origin}/big`, body: big }]), speed: 1 },
    });
    expect(two.status, two.text.slice(0, 300)).toBe(202);
    expect(two.body.config.replay).toMatchObject({ requests: 1, speed: 1 });
    await waitFor(two.body.test_id, (b) => b.status === 'completed', 40_000);
    const over = await start({
      replay: {
        har: harOf([{ method: 'POST', url: `${origin}/big`, body: 'x'.repeat(10 * 1024 * 1024 + 64 * 1024) }]),
      },
    });
    expectErrorShape(over, 413);
  });
});
