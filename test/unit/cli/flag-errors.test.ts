// A refusal that names a field is told as the flag the user typed (exit 2): the API's own schema
// checked in the command, and the API's answers that refuse a value.
import { describe, expect, it } from 'vitest';
import { createBody, searchQuery } from '../../../contract/webhooks/webhooks.ts';
import { ApiError, exitCodeOf, NetworkError, UsageError } from '../../../cli/errors.ts';
import { checked } from '../../../cli/check-input.ts';
import { asFlags } from '../../../cli/flag-errors.ts';

describe('flags in refusals', () => {
  it("names the flag of the field the API's schema refuses, with the place inside a file's value", () => {
    const flags = { 'retention.max_requests': '--keep', rules: '--rules', since: '--since', webhook_id: '<id>' };
    const refusal = (
      schema: Parameters<typeof checked>[0],
      input: Record<string, unknown>,
      where: 'query' | 'body',
    ) => {
      try {
        checked(schema, input, where, flags);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal(createBody, { retention: { max_requests: 999_999 } }, 'body')).toBe(
      '--keep: must be from 1 to 10000',
    );
    expect(refusal(createBody, { rules: [{ match: { methd: 'POST' } }] }, 'body')).toMatch(
      /^--rules \(rules\.0\.match\.methd\): is not a field of this body \(did you mean method\?\)$/,
    );
    expect(refusal(searchQuery, { webhook_id: 'wh_1', since: 'yesterday' }, 'query')).toMatch(
      /^--since: must be an ISO 8601 time/,
    );
    expect(refusal(searchQuery, { since: '2026-01-01T00:00:00Z' }, 'query')).toBe('<id>: is required');
    // A field no flag gave keeps the API's words, still wrong usage.
    expect(refusal(createBody, { response: { status: 99 } }, 'body')).toMatch(/^response\.status: must be from 200/);
    // Undefined is no parameter (a strict query does not see it).
    expect(checked(searchQuery, { webhook_id: 'wh_1', q: undefined }, 'query', flags)).toMatchObject({ limit: 500 });
  });

  it("tells the API's refusals of a value as the flag; other failures stay what they were", async () => {
    const flags = { forward_url: '--forward-url', 'retention.max_requests': '--keep' };
    const refused = (status: number, code: string, detail: string) =>
      asFlags(flags, () => Promise.reject(new ApiError('POST /x', status, code, detail)));
    const ssrf = await refused(400, 'target_not_allowed', 'forward_url: target not allowed: 10.0.0.1 is private').catch(
      (e) => e,
    );
    expect([ssrf.message, exitCodeOf(ssrf)]).toEqual(['--forward-url: target not allowed: 10.0.0.1 is private', 2]);
    const plan = await refused(403, 'plan_limit', 'retention.max_requests: at most 1000 on the free plan').catch(
      (e) => e,
    );
    expect([plan.message, exitCodeOf(plan)]).toEqual(['--keep: at most 1000 on the free plan', 2]);
    for (const other of [
      new ApiError('POST /x', 404, 'not_found', 'forward_url: no such thing'),
      new ApiError('POST /x', 400, 'invalid_input', 'rules: refused'), // a field of no flag given
      new NetworkError('POST /x failed: ECONNREFUSED'),
    ]) {
      const e = await asFlags(flags, () => Promise.reject(other)).catch((x) => x);
      expect([e, exitCodeOf(e)]).toEqual([other, 1]);
    }
  });
});
