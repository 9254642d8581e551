// What a start body becomes for the shards: the test's headers and credentials on every request,
// a step's own header replacing the test's of the same name whatever its case.
import { describe, expect, it } from 'vitest';
import { startBody } from '../../../../../contract/load/load-test-start.ts';
import { LOAD_USER_AGENT, targetOf, testHeaders } from '../../../../../api/services/load-tests/load-test-input.ts';

describe('a load test start body as the shards send it', () => {
  it("puts the test's headers and credentials on each step, the step's own replacing them whatever the case", () => {
    const body = startBody.parse({
      targetUrl: 'https://shop.example/',
      httpMethod: 'GET',
      concurrentUsers: 1,
      testDuration: 10,
      authType: 'bearer',
      authToken: 't',
      headers: { 'X-Tenant': 'a', 'User-Agent': 'mine' },
      steps: [{ path: '/a', headers: { 'x-TENANT': 'b' } }, { path: '/b' }],
    });
    expect(testHeaders(body)).toEqual({ 'x-tenant': 'a', 'user-agent': 'mine', authorization: 'Bearer t' });
    const target = targetOf(body, new URL(body.targetUrl));
    expect(target.headers).toEqual({ 'user-agent': 'mine', 'x-tenant': 'a', authorization: 'Bearer t' });
    expect(target.steps?.map((s) => s.headers['x-tenant'])).toEqual(['b', 'a']);
    expect(Object.keys(target.steps![0]!.headers).filter((k) => k.toLowerCase() === 'x-tenant')).toHaveLength(1);
    const plain = startBody.parse({
      targetUrl: 'https://shop.example/',
      httpMethod: 'GET',
      concurrentUsers: 1,
      testDuration: 10,
    });
    expect(targetOf(plain, new URL(plain.targetUrl)).headers).toEqual({ 'user-agent': LOAD_USER_AGENT });
  });

  it("gives a replay the test's headers and credentials to put on each recorded request", () => {
    const har = {
      log: {
        entries: [
          { startedDateTime: '2026-11-27T10:00:00Z', request: { method: 'GET', url: 'https://shop.example/' } },
        ],
      },
    };
    const body = startBody.parse({
      replay: { har, speed: 1, loop: true },
      testDuration: 10,
      authType: 'basic',
      authUsername: 'u',
      authPassword: 'p',
      headers: { 'X-Tenant': 'a' },
    });
    expect(targetOf(body, new URL('https://shop.example/')).replay).toEqual({
      speed: 1,
      loop: true,
      headers: { 'x-tenant': 'a', authorization: `Basic ${Buffer.from('u:p').toString('base64')}` },
    });
  });
});
