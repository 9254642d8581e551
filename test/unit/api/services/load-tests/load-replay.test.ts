// A replay's sequence within its bounds: the headers of every request, the test's own counted on
// each, at most MAX_REPLAY_HEADER_BYTES (unbounded, a few megabytes of the test's own headers on
// 10,000 entries made a sequence of tens of gigabytes); refused naming the figures.
import { describe, expect, it } from 'vitest';
import { startBody } from '../../../../../contract/load/load-test-start.ts';
import {
  headerBytes,
  loadReplayService,
  MAX_REPLAY_HEADER_BYTES,
} from '../../../../../api/services/load-tests/load-replay.ts';
import { LOAD_USER_AGENT } from '../../../../../api/services/load-tests/load-test-input.ts';
import type { StartBody } from '../../../../../contract/load/load-test-start.ts';

const ENTRIES = 10_000;
const har = {
  log: {
    entries: Array.from({ length: ENTRIES }, (_, i) => ({
      startedDateTime: new Date(Date.UTC(2026, 10, 27, 10, 0, 0, i)).toISOString(),
      request: { method: 'GET', url: `https://shop.example/p${i}`, headers: [{ name: 'x-n', value: String(i) }] },
    })),
  },
};
/** The headers of the entries themselves, and those the test adds to each besides its own. */
const recorded = har.log.entries.reduce((n, e) => n + headerBytes({ 'x-n': e.request.headers[0]!.value }), 0);
const added = headerBytes({ 'user-agent': LOAD_USER_AGENT });
/** A start body whose own header makes the sequence's headers `total` bytes. */
const body = (total: number) => {
  const own = Math.floor((total - recorded) / ENTRIES) - added - 'x-own'.length;
  return startBody.parse({ replay: { har, speed: 0 }, testDuration: 60, headers: { 'x-own': 'v'.repeat(own) } });
};
// The HAR path reads no database.
const replays = loadReplayService({ db: undefined as never, captures: undefined as never });
const sequence = (b: StartBody) => replays.sequence(1, 'enterprise', b, new URL('https://shop.example/'));

describe('the sequence of a replay', () => {
  it("holds at most MAX_REPLAY_HEADER_BYTES of headers, the test's own counted on every request", async () => {
    const within = await sequence(body(MAX_REPLAY_HEADER_BYTES));
    expect(within.requests).toHaveLength(ENTRIES);
    expect(within.requests.reduce((n, q) => n + headerBytes(q.headers), 0)).toBeLessThanOrEqual(
      MAX_REPLAY_HEADER_BYTES,
    );
    const past = body(MAX_REPLAY_HEADER_BYTES + ENTRIES);
    const own = headerBytes({ 'user-agent': LOAD_USER_AGENT, ...past.headers });
    await expect(sequence(past)).rejects.toMatchObject({
      status: 400,
      message:
        `replay: the requests' headers come to ${recorded + ENTRIES * own} bytes, the test's own (${own} ` +
        `bytes) on each of the ${ENTRIES}, more than ${MAX_REPLAY_HEADER_BYTES}: send fewer or shorter ` +
        `headers, or replay fewer requests`,
    });
  });

  it("stores no credentials of the test's: the shards put them on from the workflow's input", async () => {
    const b = startBody.parse({
      replay: { har, speed: 0 },
      testDuration: 60,
      authType: 'apikey',
      apiKeyHeader: 'X-Api-Key',
      apiKeyValue: 'replay-secret-key',
      headers: { 'x-own': 'own' },
    });
    const { requests } = await sequence(b);
    expect(JSON.stringify(requests)).not.toContain('replay-secret-key');
    expect(requests[0]!.headers).toEqual({ 'user-agent': LOAD_USER_AGENT, 'x-n': '0' });
  });
});
