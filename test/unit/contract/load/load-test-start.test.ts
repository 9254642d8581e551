// One start body for every door: the MCP tool's input schema is built from the REST body's fields, so
// a client reads the same fields (thresholds in both of their forms), and the tool's two passes (the
// SDK's parse with the fields, then startBody's) give what the REST body's one pass gives.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { startBody, startFields } from '../../../../contract/load/load-test-start.ts';
import { toolArgs, validate } from '../../../../contract/validate.ts';

const toolSchema = toolArgs(startFields);
/** What a body's refusal says, as a door answers it (the field, then what is wrong with it). */
const validateMessage = (body: unknown) => {
  try {
    validate(startBody, body, 'arguments');
    return 'accepted';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('the load test start body', () => {
  it("shows MCP clients the REST body's fields, each threshold as an expression or k6's object", () => {
    type Item = { anyOf?: Array<{ type: string; required?: string[] }> };
    const json = z.toJSONSchema(toolSchema, { io: 'input' }) as {
      properties: Record<
        string,
        {
          type?: string | string[];
          anyOf?: Array<{ type: string; items?: Item; additionalProperties?: { items?: Item } }>;
        }
      >;
      additionalProperties: boolean;
    };
    expect(Object.keys(json.properties)).toEqual(Object.keys(startFields));
    expect(json.additionalProperties).toBe(false);
    // A list of thresholds, or k6's object of lists by metric name; each one an expression or an object.
    const [list, byMetric] = json.properties.thresholds!.anyOf!;
    expect([list!.type, byMetric!.type]).toEqual(['array', 'object']);
    for (const item of [list!.items!, byMetric!.additionalProperties!.items!]) {
      expect(item.anyOf!.map((f) => f.type)).toEqual(['string', 'object']);
      expect(item.anyOf![1]!.required).toEqual(['threshold']);
    }
    // Durations: seconds, or a string such as "10m".
    expect(json.properties.testDuration!.type).toEqual(['number', 'string']);
  });

  it.each([
    {
      name: 'a plain test',
      body: { targetUrl: 'https://shop.example/', httpMethod: 'get', concurrentUsers: 5, testDuration: 10 },
    },
    {
      name: 'stages at a rate, thresholds in both forms',
      body: {
        targetUrl: 'https://shop.example/',
        httpMethod: 'GET',
        stages: [
          { duration: 5, target: 10 },
          { duration: 10, target: 10 },
        ],
        stageTarget: 'rate',
        concurrentUsers: 20,
        thresholds: ['p99 < 300', { threshold: 'error_rate < 1', abortOnFail: true, delayAbortEval: '10s' }],
      },
    },
    {
      name: 'steps with credentials',
      body: {
        targetUrl: 'https://shop.example/cart',
        httpMethod: 'post',
        concurrentUsers: 2,
        testDuration: 10,
        authType: 'bearer',
        authToken: 't0ken',
        steps: [{ method: 'post', path: '/cart', body: '{}', capture: { id: '/id' } }, { path: '/cart/{{id}}' }],
      },
    },
    {
      name: 'a HAR replay on its own origin, at speed 0 with user stages',
      body: {
        replay: {
          har: {
            log: {
              entries: [
                {
                  startedDateTime: '2026-11-27T10:00:00.000Z',
                  request: { method: 'get', url: 'https://shop.example/', headers: [{ name: 'Accept', value: '*/*' }] },
                  _priority: 'High',
                },
              ],
            },
          },
          speed: 0,
        },
        stages: [
          { duration: 5, target: 3 },
          { duration: 5, target: 1 },
        ],
      },
    },
    {
      name: "durations as strings, k6's thresholds in its object form",
      body: {
        targetUrl: 'https://shop.example/',
        httpMethod: 'GET',
        concurrentUsers: 5,
        testDuration: '10m',
        rampUpTime: '1m30s',
        thresholds: {
          http_req_duration: ['p(95)<300'],
          http_req_failed: [{ threshold: 'rate<0.01', abortOnFail: true }],
        },
      },
    },
  ])('gives the same start through the MCP tool as through REST: $name', ({ body }) => {
    const rest = startBody.parse(body);
    const viaTool = startBody.parse(toolSchema.parse(body));
    expect(viaTool).toEqual(rest);
  });

  it('reads "10m" as 600 seconds and k6\'s thresholds as ours, through either door', () => {
    const body = {
      targetUrl: 'https://shop.example/',
      httpMethod: 'GET',
      concurrentUsers: 5,
      testDuration: '10m',
      rampUpTime: '1m30s',
      thresholds: { http_req_duration: ['p(95)<300'], http_req_failed: ['rate<0.01'] },
    };
    for (const parsed of [startBody.parse(body), startBody.parse(toolSchema.parse(body))]) {
      expect(parsed).toMatchObject({ testDuration: 600, rampUpTime: 90 });
      expect(parsed.thresholds.map((t) => t.threshold)).toEqual(['p95 < 300', 'error_rate < 1']);
    }
  });

  it("reads an output's interval_seconds as testDuration: seconds or a duration, through either door", () => {
    const body = (interval: unknown) => ({
      targetUrl: 'https://shop.example/',
      httpMethod: 'GET',
      concurrentUsers: 5,
      testDuration: 10,
      outputs: [{ type: 'prometheus_remote_write', url: 'https://prom.example/write', interval_seconds: interval }],
    });
    for (const [given, seconds] of [
      ['10s', 10],
      ['1m', 60],
      [15, 15],
      [undefined, 5],
    ] as const)
      for (const parsed of [startBody.parse(body(given)), startBody.parse(toolSchema.parse(body(given)))])
        expect(parsed.outputs?.[0]).toMatchObject({ interval_seconds: seconds });
    const refusal = (given: unknown) => validateMessage(body(given));
    expect(refusal('90s')).toBe('outputs.0.interval_seconds: must be from 1 to 60');
    expect(refusal('soon')).toBe(
      'outputs.0.interval_seconds: must be seconds or a duration such as 90, "90s", "10m" or "1h30m"',
    );
  });

  it.each([
    { concurrentUsers: 0 },
    { thresholds: ['p99 <'] },
    { thresholds: [{ threshold: 'p99 < 1', abortOnFail: 'yes' }] },
    { headers: { 'x-a': 'one\r\ntwo' } },
    { rampUpTime: 20 },
    { testDuration: 'ten minutes' },
    { thresholds: { http_req_duration: ['p(97)<300'] } },
  ])('refuses through the MCP tool what REST refuses: %o', (fault) => {
    const body = {
      targetUrl: 'https://shop.example/',
      httpMethod: 'GET',
      concurrentUsers: 5,
      testDuration: 10,
      ...fault,
    };
    expect(startBody.safeParse(body).success).toBe(false);
    const first = toolSchema.safeParse(body);
    expect(first.success && startBody.safeParse(first.data).success).toBe(false);
  });
});
