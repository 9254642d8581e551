// How the command ends, as scripts read it: 0 done, 1 the API or the network failed, 2 wrong usage,
// 99 thresholds failed (k6's code, so CI steps written for k6 read ours the same way), 98 a load test
// that tested nothing (every attempt failed: the target unreachable), 124 a wait that ended at its
// timeout (timeout(1)'s code).
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 98, thresholds: 99, timedOut: 124 } as const;

/** Wrong usage: a bad flag, a file that does not parse, a body the API's schema refuses. Exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The API answered an error: its status, its stable error_code and its message. Exit 1. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly errorCode: string;
  /** The answer's message as it came (it starts with the field it names, when it names one). */
  readonly detail: string;
  /** The answer's Retry-After, when it had one. */
  readonly retryAfterSeconds: number | undefined;
  constructor(what: string, status: number, errorCode: string, detail: string, retryAfterSeconds?: number) {
    super(`${what} failed: ${status} ${errorCode}: ${detail}`);
    this.status = status;
    this.errorCode = errorCode;
    this.detail = detail;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** Asking again later may succeed: the service is busy, restarting or has a dependency away. */
  get retryable(): boolean {
    return this.status >= 500 || this.status === 429 || this.status === 408;
  }
}

/** The service could not be reached (refused, reset, timed out). Exit 1. */
export class NetworkError extends Error {
  override name = 'NetworkError';
}

/** Thresholds did not hold. Exit 99. */
export class ThresholdsFailed extends Error {
  override name = 'ThresholdsFailed';
}

/** A load test whose every attempt failed (verdict target_unreachable): nothing was measured. Exit 98. */
export class TargetUnreachable extends Error {
  override name = 'TargetUnreachable';
}

/** What was waited for did not come in time. Exit 124. */
export class TimedOut extends Error {
  override name = 'TimedOut';
}

export function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof ThresholdsFailed) return EXIT.thresholds;
  if (err instanceof TargetUnreachable) return EXIT.unreachable;
  if (err instanceof TimedOut) return EXIT.timedOut;
  return EXIT.failed;
}
