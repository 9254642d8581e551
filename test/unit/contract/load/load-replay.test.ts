// The start body's replay: its rules between fields, its defaults, and a HAR the schema refuses
// answered as faults naming the field (never a crash), whether or not targetUrl is given; a HAR is
// read once, however many times the start body is checked.
import { describe, expect, it } from 'vitest';
import { replaySchema } from '../../../../contract/load/load-replay.ts';
import { startBody } from '../../../../contract/load/load-test-start.ts';

const entry = (url: string, method = 'GET') => ({
  startedDateTime: '2026-11-27T10:00:00.000Z',
  request: { method, url, headers: [] },
});
const har = (...urls: string[]) => ({ log: { entries: urls.map((u) => entry(u)) } });
/** The faults of a body as "field: message". */
const faults = (body: unknown) => {
  const parsed = startBody.safeParse(body);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('the replay of a load test start body', () => {
  it('fills what a replay leaves out: the HAR origin, users by speed, the stages peak, a length to compute', () => {
    const timed = startBody.parse({ replay: { har: har('https://shop.example/a?x=1') } });
    expect(timed).toMatchObject({
      targetUrl: 'https://shop.example',
      targetField: 'replay.har.log.entries.0.request.url',
      concurrentUsers: 10,
      testDuration: 0,
      rampUpTime: 0,
      replay: { speed: 1, loop: false },
    });
    expect(startBody.parse({ targetUrl: 'https://t.example/', replay: { webhook_id: 'w1', speed: 0 } })).toMatchObject({
      targetField: 'targetUrl',
      concurrentUsers: 1,
    });
    const staged = startBody.parse({
      replay: { har: har('https://shop.example/'), speed: 0 },
      stages: [
        { duration: 5, target: 4 },
        { duration: 5, target: 2 },
      ],
    });
    expect(staged).toMatchObject({ concurrentUsers: 4, testDuration: 10 });
  });

  it.each([
    [{ replay: { har: { log: {} } } }, 'replay.har.log.entries: must be a list of entries'],
    [{ replay: { har: har('nope') } }, 'replay.har.log.entries.0.request.url: must be an http(s) URL'],
    [{ replay: { har: har('ftp://shop.example/') } }, 'replay.har.log.entries.0.request.url: must be an http(s) URL'],
    [{ replay: { har: 'x' } }, 'replay.har: must be a HAR 1.2 object {log: {entries}}'],
    [
      { replay: { har: { log: { entries: [{ ...entry('https://a.example/'), startedDateTime: 'soon' }] } } } },
      'replay.har.log.entries.0.startedDateTime: must be an ISO 8601 time',
    ],
    [
      {
        replay: {
          har: {
            log: {
              entries: [
                {
                  ...entry('https://a.example/', 'POST'),
                  request: {
                    method: 'POST',
                    url: 'https://a.example/',
                    headers: [],
                    // Sent as the content-type: it would write a request of its own, to another host.
                    postData: {
                      mimeType: 'text/plain\r\ncontent-length: 0\r\n\r\nGET / HTTP/1.1\r\nHost: b.example',
                      text: 'x',
                    },
                  },
                },
              ],
            },
          },
        },
      },
      'replay.har.log.entries.0.request.postData.mimeType: must not contain line breaks',
    ],
    [
      { replay: { har: har('https://a.example/', 'https://b.example/') } },
      'replay.har.log.entries.1.request.url: is on https://b.example, not https://a.example',
    ],
    [
      { targetUrl: 'https://t.example', replay: { webhook_id: 'w1', speed: 0.001 } },
      'replay.speed: must be 0, or from 0.01 to 1000',
    ],
    [
      { targetUrl: 'https://t.example', replay: { webhook_id: 'w1', har: har('https://t.example/') } },
      'replay: must give either',
    ],
    [
      { targetUrl: 'https://t.example', replay: { har: har('https://t.example/'), ids: [1] } },
      'replay.ids: picks captures',
    ],
  ])('refuses %o naming the field, never throwing', (body, message) => {
    expect(() => startBody.safeParse(body)).not.toThrow();
    expect(faults(body).join('\n')).toContain(message);
  });

  it('reads a HAR once: the checks, the transform and a second parse of the answer take it as read', () => {
    let reads = 0;
    const given = har('https://shop.example/a', 'https://shop.example/b');
    const counted = {
      get log() {
        reads++;
        return given.log;
      },
    };
    const parsed = startBody.parse({ replay: { har: counted } });
    expect(parsed.replay!.har!.log.entries).toHaveLength(2);
    expect(reads).toBe(1);
    // The MCP SDK parses the arguments twice: the HAR given back is not read again.
    expect(replaySchema.parse(parsed.replay).har).toBe(parsed.replay!.har);
    expect(reads).toBe(1);
  });
});
