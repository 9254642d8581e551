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
} from '../../../lib/errors.ts';
import { ForbiddenAddressError } from '../../../lib/net/target-guard.ts';

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
