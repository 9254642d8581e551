// One base error with a stable HTTP status; one subclass per condition a caller can act on.
// The REST error body is built from these in api/middleware/errors.ts.
import { STATUS_CODES } from 'node:http';

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 429 | 500 | 501 | 502 | 503 | 504;

export class AppError extends Error {
  override name = 'AppError';
  readonly status: ErrorStatus;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: ErrorStatus, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }

  /** The reason phrase used as `error` in the body. */
  get reason(): string {
    return STATUS_CODES[this.status] ?? 'Error';
  }
}

/** Bad untrusted input. `field` names what was wrong, so the caller can fix it. */
export class InvalidInputError extends AppError {
  override name = 'InvalidInputError';
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super(400, message);
    this.field = field;
  }
}

/** Missing or bad credentials; the challenge names the scheme, as HTTP requires of a 401. */
export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError';
  constructor(message: string, challenge = 'Bearer') {
    super(401, message, { 'WWW-Authenticate': challenge });
  }
}

/** Unknown id, or an id that belongs to someone else: the two are never told apart. */
export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  constructor(message: string) {
    super(404, message);
  }
}

export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  constructor(limitBytes: number) {
    super(413, `Request body is larger than the limit of ${limitBytes} bytes`);
  }
}

export class RateLimitedError extends AppError {
  override name = 'RateLimitedError';
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, { 'Retry-After': String(retryAfterSeconds) });
  }
}

export class UpstreamError extends AppError {
  override name = 'UpstreamError';
  constructor(message: string, timedOut = false) {
    super(timedOut ? 504 : 502, message);
  }
}
