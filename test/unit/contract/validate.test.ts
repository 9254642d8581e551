// Input a door refuses: an unknown key is named as the field, with the known key it is a slip away
// from (requestPerSecond: did you mean requestsPerSecond?), at the top of a body and inside it.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closest, refuseUnknownParameters, toolArgs, validate } from '../../../contract/validate.ts';
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
