// One base error with a stable string code (what callers test) and the HTTP status that code maps
// to; one subclass per condition a caller can act on. The REST error body is built from these in
// api/middleware/errors.ts; the workers turn the caller's mistakes into non-retryable failures
// (workers/pools/interceptors.ts), so Temporal does not retry what cannot succeed.
import { STATUS_CODES } from 'node:http';

/** Every code, with its HTTP status. */
export const ERROR_CODES = {
  invalid_input: 400,
  target_not_allowed: 400,
  unauthorized: 401,
  forbidden: 403,
  plan_limit: 403,
  target_not_verified: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  provenance_mark: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  not_implemented: 501,
  upstream_failed: 502,
  unavailable: 503,
  dependency_unavailable: 503,
  timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The code of a bare HTTP status; two codes share 400, and a bare 400 is invalid input. */
const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'invalid_input',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  416: 'range_not_satisfiable',
  429: 'rate_limited',
  431: 'headers_too_large',
  500: 'internal',
  501: 'not_implemented',
  502: 'upstream_failed',
  503: 'unavailable',
  504: 'timeout',
};

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  /** The HTTP status: the code's, unless the error came from a bare status (ofStatus). */
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
    status: number = ERROR_CODES[code],
  ) {
    super(message);
    this.code = code;
    this.headers = headers;
    this.status = status;
  }

  /** The reason phrase used as `error` in the body. */
  get reason(): string {
    return STATUS_CODES[this.status] ?? 'Error';
  }

  /** True when the caller's request is what failed (a 4xx). */
  get isCallersFault(): boolean {
    return this.status < 500;
  }

  /** Whether the same request can succeed later: failures on our or an upstream's side, and rate limits. */
  get retryable(): boolean {
    return !this.isCallersFault || this.code === 'rate_limited';
  }

  /** The error of a bare HTTP status (a router's 404 or 405, a body reader's 4xx), which it keeps. */
  static ofStatus(status: number, message: string): AppError {
    return new AppError(CODE_OF_STATUS[status] ?? (status < 500 ? 'invalid_input' : 'internal'), message, {}, status);
  }
}

/** Bad untrusted input. `field` names what was wrong, so the caller can fix it. */
export class InvalidInputError extends AppError {
  override name = 'InvalidInputError';
  readonly field: string | undefined;
  constructor(message: string, field?: string, code: 'invalid_input' | 'target_not_allowed' = 'invalid_input') {
    super(code, message);
    this.field = field;
  }
}

/** Missing or bad credentials; the challenge names the scheme, as HTTP requires of a 401. */
export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError';
  constructor(message: string, challenge = 'Bearer') {
    super('unauthorized', message, { 'WWW-Authenticate': challenge });
  }
}

/** An error class whose instances all carry `code` and take only a message. */
function coded(code: ErrorCode, name: string) {
  return class extends AppError {
    override name = name;
    constructor(message: string) {
      super(code, message);
    }
  };
}

/** Known caller, not allowed to do this here. */
export class ForbiddenError extends coded('forbidden', 'ForbiddenError') {}
/** Past a count bound of the user's plan (webhooks owned, a load test's size): the message names it. */
export class PlanLimitError extends coded('plan_limit', 'PlanLimitError') {}
/** A large load test of a host the caller has not proven to control: the message says how to prove it. */
export class TargetNotVerifiedError extends coded('target_not_verified', 'TargetNotVerifiedError') {}
/** Unknown id, or an id that belongs to someone else: the two are never told apart. */
export class NotFoundError extends coded('not_found', 'NotFoundError') {}
/** The thing is not in a state that allows this (a stop of an ended test, results of a running one). */
export class ConflictError extends coded('conflict', 'ConflictError') {}
/** Gone for good: a single-use link already used, or expired. */
export class GoneError extends coded('gone', 'GoneError') {}
/** A body of a media type the operation does not take (the message names what it takes). */
export class UnsupportedMediaTypeError extends coded('unsupported_media_type', 'UnsupportedMediaTypeError') {}
/** A request to remove a mark that discloses generated content (an AI video generator's): refused by design. */
export class ProvenanceMarkError extends coded('provenance_mark', 'ProvenanceMarkError') {}
/** A job did not end within the time a request waits for it (it goes on). */
export class JobTimeoutError extends coded('timeout', 'JobTimeoutError') {}
/** Nothing that could answer is there now (no worker took a query): trying again later may work. */
export class UnavailableError extends coded('unavailable', 'UnavailableError') {}

/** A server the service needs (ARCHITECTURE.md) is away: an outage of what needs it, never a crash. */
export type Dependency = 'database' | 'store' | 'temporal' | 'blobs';
const DEPENDENCY_NAMES: Record<Dependency, string> = {
  database: 'The database (Postgres)',
  store: 'The key-value store (Redis)',
  temporal: 'The Temporal server',
  blobs: 'The blob store',
};
/** How long a client should wait before asking again while a dependency is away. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/** 503 with Retry-After, naming the dependency; retryable (Temporal retries it in activities). */
export class DependencyUnavailableError extends AppError {
  override name = 'DependencyUnavailableError';
  readonly dependency: Dependency;
  constructor(dependency: Dependency, cause: unknown) {
    // The cause (with its addresses) goes to the log, never into the answer.
    super('dependency_unavailable', `${DEPENDENCY_NAMES[dependency]} is unavailable: try again in a few seconds`, {
      'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS),
    });
    this.dependency = dependency;
    this.cause = cause;
  }
}

export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  constructor(limitBytes: number) {
    super('payload_too_large', `Request body is larger than the limit of ${limitBytes} bytes`);
  }
}

export class RateLimitedError extends AppError {
  override name = 'RateLimitedError';
  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** A target or upstream answered something unusable, or (timedOut) did not answer in time. */
export class UpstreamError extends AppError {
  override name = 'UpstreamError';
  constructor(message: string, timedOut = false) {
    super(timedOut ? 'timeout' : 'upstream_failed', message);
  }
}
