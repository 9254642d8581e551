// Coded errors: callers test the code; the status and the reason phrase follow from it.
import { describe, expect, it } from 'vitest';
import {
  AppError,
  ConflictError,
  ERROR_CODES,
  InvalidInputError,
  JobTimeoutError,
  NotFoundError,
  RateLimitedError,
  UnavailableError,
  UpstreamError,
} from '../../lib/errors.ts';
import { ForbiddenAddressError } from '../../lib/net/target-guard.ts';

describe('AppError', () => {
  it('gives each condition its code, the status of that code, and the class name', () => {
    const cases: Array<[AppError, string, number, string]> = [
      [new NotFoundError('x'), 'not_found', 404, 'NotFoundError'],
      [new ConflictError('x'), 'conflict', 409, 'ConflictError'],
      [new JobTimeoutError('x'), 'timeout', 504, 'JobTimeoutError'],
      [new UnavailableError('x'), 'unavailable', 503, 'UnavailableError'],
      [new UpstreamError('x'), 'upstream_failed', 502, 'UpstreamError'],
      [new UpstreamError('x', true), 'timeout', 504, 'UpstreamError'],
      [new InvalidInputError('x', 'f'), 'invalid_input', 400, 'InvalidInputError'],
      [new ForbiddenAddressError('x', 'url'), 'target_not_allowed', 400, 'ForbiddenAddressError'],
    ];
    for (const [err, code, status, name] of cases) {
      expect([err.code, err.status, err.name, err instanceof AppError]).toEqual([code, status, name, true]);
    }
    expect(new NotFoundError('x')).toBeInstanceOf(NotFoundError);
    expect(new NotFoundError('x')).not.toBeInstanceOf(ConflictError);
  });

  it('keeps a bare status it has no code of, and names a bare 400 invalid input', () => {
    expect(AppError.ofStatus(404, 'No route')).toMatchObject({ code: 'not_found', status: 404, reason: 'Not Found' });
    expect(AppError.ofStatus(501, 'x')).toMatchObject({ code: 'not_implemented', status: 501 });
    expect(AppError.ofStatus(400, 'x')).toMatchObject({ code: 'invalid_input', status: 400 });
    expect(AppError.ofStatus(422, 'x')).toMatchObject({
      code: 'invalid_input',
      status: 422,
      reason: 'Unprocessable Entity',
    });
    expect(AppError.ofStatus(599, 'x')).toMatchObject({ code: 'internal', status: 599 });
  });

  it("says what another attempt can fix: server-side failures and rate limits, not the caller's mistakes", () => {
    expect(new UpstreamError('x').retryable).toBe(true);
    expect(new RateLimitedError('x', 3).retryable).toBe(true);
    expect(new NotFoundError('x').retryable).toBe(false);
    expect(new ForbiddenAddressError('x').retryable).toBe(false);
  });

  it('maps every code to an HTTP error status', () => {
    for (const status of Object.values(ERROR_CODES)) expect(status >= 400 && status < 600).toBe(true);
  });
});

describe('what the API logs of a failure', () => {
  const logged = () => {
    const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
    const at = (level: string) => (fields: Record<string, unknown>, message: string) =>
      void lines.push({ level, fields, message });
    return { lines, logger: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } as never };
  };

  it("logs a user's target that failed at info without a stack, our own failures at error with theirs, and a caller's mistake not at all", async () => {
    const { logFailure, toAppError } = await import('../../api/middleware/errors.ts');
    const { lines, logger } = logged();
    const upstream = new UpstreamError('https://example.com/ answered 404');
    logFailure(logger, toAppError(upstream), upstream, { path: '/api/v1/site/audit' });
    const bug = new TypeError('x is undefined');
    logFailure(logger, toAppError(bug), bug, { path: '/api/v1/network/dns-lookup' });
    const mistake = new InvalidInputError('domain: is required', 'domain');
    logFailure(logger, mistake, mistake, {});
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['info', 'an upstream failed'],
      ['error', 'request failed'],
    ]);
    expect(lines[0]!.fields).toEqual({
      error_code: 'upstream_failed',
      message: 'https://example.com/ answered 404',
      path: '/api/v1/site/audit',
    });
    expect(lines[1]!.fields.err).toBe(bug);
  });
});
