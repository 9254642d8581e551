// Input a door refuses: an unknown key is named as the field, with the known key it is a slip away
// from (requestPerSecond: did you mean requestsPerSecond?), at the top of a body and inside it.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closest, refuseUnknownParameters, toolArgs, toolOutput, validate } from '../../../contract/validate.ts';
import { startBody } from '../../../contract/load/load-test-start.ts';
import { createBody, searchQuery, updateBody } from '../../../contract/webhooks/webhooks.ts';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    return { message: (err as Error).message, field: (err as { field?: string }).field };
  }
  throw new Error('accepted');
};

describe('unknown query parameters', () => {
  it(
    'refuses a typo of a filter, naming it and the parameter ' + 'it is a slip from (the schema need not be strict)',
    () => {
      expect(refusal(() => validate(searchQuery, { webhook_id: 'abc', metod: 'POST' }, 'query'))).toEqual({
        message: 'metod: is not a field of this query (did you mean method?)',
        field: 'metod',
      });
      expect(validate(searchQuery, { webhook_id: 'abc', method: 'POST' }, 'query')).toMatchObject({ method: 'POST' });
    },
  );

  it('refuses any parameter of an endpoint that takes none', () => {
    expect(refusal(() => refuseUnknownParameters({ page: '2' }, []))).toEqual({
      message: 'page: is not a field of this query (this endpoint takes no query parameters)',
      field: 'page',
    });
    expect(() => refuseUnknownParameters({}, [])).not.toThrow();
  });
});

describe('unknown keys', () => {
  it('names the key and suggests the field it is a slip away from', () => {
    const start = { targetUrl: 'http://127.0.0.1/', httpMethod: 'GET', concurrentUsers: 1, testDuration: 10 };
    expect(refusal(() => validate(startBody, { ...start, requestPerSecond: 5 }, 'body'))).toEqual({
      message: 'requestPerSecond: is not a field of this body (did you mean requestsPerSecond?)',
      field: 'requestPerSecond',
    });
    expect(refusal(() => validate(startBody, { ...start, threshold: ['p95 < 300'] }, 'body')).message).toBe(
      'threshold: is not a field of this body (did you mean thresholds?)',
    );
    expect(refusal(() => validate(startBody, { ...start, colour: 'blue' }, 'body')).message).toBe(
      'colour: is not a field of this body (a typo?)',
    );
  });

  it('a typo of a required key is named as the unknown key, not as the missing one', () => {
    const start = { targetUrl: 'http://127.0.0.1/', concurrentUsers: 1, testDuration: 10 };
    expect(refusal(() => validate(startBody, { ...start, httpMethd: 'GET' }, 'body')).message).toBe(
      'httpMethd: is not a field of this body (did you mean httpMethod?)',
    );
  });

  it("an MCP tool's arguments: the schema the SDK validates with says the same", () => {
    const args = toolArgs({ domain: z.string(), type: z.string().optional() });
    expect(z.toJSONSchema(args).additionalProperties).toBe(false);
    const issues = args.safeParse({ domain: 'example.test', typ: 'MX' }).error!.issues;
    expect(issues.map((i) => i.message)).toEqual(['typ: is not an argument of this tool (did you mean type?)']);
  });

  it('inside a body, and behind a preprocess or a refine', () => {
    expect(refusal(() => validate(createBody, { retention: { max_request: 5 } }, 'body')).message).toBe(
      'retention.max_request: is not a field of this body (did you mean max_requests?)',
    );
    expect(refusal(() => validate(createBody, { forwardUrl: 'http://127.0.0.1/' }, 'body')).message).toBe(
      'forwardUrl: is not a field of this body (did you mean forward_url?)',
    );
    expect(
      refusal(() => validate(updateBody, { webhook_id: 'abcdefghijklmnopqrstuv', retension: {} }, 'body')).message,
    ).toBe('retension: is not a field of this body (did you mean retention?)');
  });

  it(
    "names the part of the request on REST only: an MCP tool's arguments and a dashboard form by their " +
      'fields alone',
    () => {
      const start = {
        targetUrl: 'http://127.0.0.1/',
        httpMethod: 'GET',
        concurrentUsers: 1,
        testDuration: 10,
        rampUpTime: 20,
      };
      expect(refusal(() => validate(startBody, start, 'body')).message).toMatch(/^rampUpTime: .* \(body\)$/);
      expect(refusal(() => validate(startBody, start, 'arguments')).message).toMatch(/^rampUpTime: [^()]*$/);
      expect(
        refusal(() => validate(startBody, { ...start, rampUpTime: 0, requestPerSecond: 5 }, 'arguments')).message,
      ).toBe('requestPerSecond: is not an argument of this tool (did you mean requestsPerSecond?)');
      expect(refusal(() => validate(startBody, { ...start, rampUpTime: 0, requestPerSecond: 5 }, 'form')).message).toBe(
        'requestPerSecond: is not a field of this form (did you mean requestsPerSecond?)',
      );
    },
  );

  it('suggests only near keys: case aside, two edits for long keys, one for short ones', () => {
    expect(closest('TargetURL', ['targetUrl', 'body'])).toBe('targetUrl');
    expect(closest('bdy', ['body', 'headers'])).toBe('body');
    expect(closest('bo', ['body'])).toBeNull();
    expect(closest('concurentUser', ['concurrentUsers'])).toBe('concurrentUsers');
  });
});

// An MCP tool's answer is declared open at every level (toolOutput): a field the contract does not name
// never fails a call, wherever the object that holds it sits, inside whichever kind of zod schema.
describe('toolOutput: objects open inside every kind that can hold one', () => {
  const inner = () => z.strictObject({ a: z.string() });
  const given = { a: 'x', unnamed: 1 };
  /** What `toolOutput` makes of an answer whose field `at` is `schema`, given `value` there. */
  const parsed = (schema: z.ZodType, value: unknown) => toolOutput(z.object({ at: schema })).safeParse({ at: value });

  it.each([
    ['prefault', inner().prefault({ a: 'default' })],
    ['readonly', inner().readonly()],
    ['nonoptional', inner().optional().nonoptional()],
    ['lazy', z.lazy(inner)],
    ['pipe, the object piped in (a transform)', inner().transform((v) => v)],
    ['pipe, the object piped into (a preprocess)', z.preprocess((v) => v, inner())],
  ])('%s', (_kind, schema) => {
    expect(parsed(schema, given)).toMatchObject({ success: true, data: { at: given } });
  });

  it('catch: the value is kept, not replaced by the caught one', () => {
    expect(parsed(inner().catch({ a: 'caught' }), given)).toMatchObject({ success: true, data: { at: given } });
  });

  it('success: an object it holds is taken', () => {
    expect(parsed(z.success(inner()), given)).toMatchObject({ success: true, data: { at: true } });
  });

  it('intersection: both sides', () => {
    const both = z.intersection(inner(), z.strictObject({ b: z.number() }));
    const value = { ...given, b: 2 };
    expect(parsed(both, value)).toMatchObject({ success: true, data: { at: value } });
  });

  it('tuple: its items and its rest', () => {
    const tuple = z.tuple([inner()], z.strictObject({ b: z.number() }));
    const value = [given, { b: 2, unnamed: 3 }];
    expect(parsed(tuple, value)).toMatchObject({ success: true, data: { at: value } });
  });

  it('map: its keys and its values; set: its values', () => {
    const map = new Map([[given, given]]);
    expect(parsed(z.map(inner(), inner()), map)).toMatchObject({ success: true, data: { at: map } });
    const set = new Set([given]);
    expect(parsed(z.set(inner()), set)).toMatchObject({ success: true, data: { at: set } });
  });

  it('promise: the object it resolves to', async () => {
    const answer = toolOutput(z.object({ at: z.promise(inner()) }));
    const got = await answer.parseAsync({ at: Promise.resolve(given) });
    expect(await got.at).toEqual(given);
  });

  it('default: the object it holds, and its value given afresh to each parse still', () => {
    const answer = toolOutput(z.object({ at: inner().default(() => ({ a: 'default' })) }));
    expect(answer.parse({ at: given }).at).toEqual(given);
    const first = answer.parse({}).at as { a: string };
    first.a = 'changed';
    expect(answer.parse({}).at).toEqual({ a: 'default' });
  });

  it('a recursive object, through a lazy or a getter, is opened at every depth and stays one schema', () => {
    type Node = { name: string; children: Node[] };
    const viaLazy: z.ZodType<Node> = z.strictObject({ name: z.string(), children: z.lazy(() => z.array(viaLazy)) });
    const viaGetter = z.strictObject({
      name: z.string(),
      get children() {
        return z.array(viaGetter);
      },
    });
    const tree = { name: 'a', unnamed: 1, children: [{ name: 'b', unnamed: 2, children: [] }] };
    for (const node of [viaLazy, viaGetter]) {
      expect(parsed(node, tree)).toMatchObject({ success: true, data: { at: tree } });
      // A schema that held a new copy at each depth would never end as JSON Schema (as MCP lists it).
      expect(JSON.stringify(z.toJSONSchema(toolOutput(z.object({ at: node }))))).toContain('"$ref"');
    }
  });
});
