// What every activity on every pool goes through: the request id of the API request that started the
// job into the activity's log lines, and the caller's mistakes failed at once instead of retried.
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { AppError, InvalidInputError } from '../../lib/errors.ts';
import { REQUEST_ID_HEADER } from '../../lib/jobs/task-queues.ts';
import { withRequest } from '../../lib/request-context.ts';

/** The request id the workflow put in the activity's headers goes into every log line of the activity. */
export const requestIdInLogs: ActivityInterceptorsFactory = () => {
  let requestId: string | undefined;
  return {
    inbound: {
      async execute(input, next) {
        const header = input.headers[REQUEST_ID_HEADER];
        if (header) requestId = defaultPayloadConverter.fromPayload<string>(header);
        // Activity code reads it as the API code does (lib/request-context.ts).
        return requestId ? withRequest({ requestId }, () => next(input)) : next(input);
      },
    },
    outbound: {
      getLogAttributes(input, next) {
        return next(requestId ? { ...input, requestId } : input);
      },
    },
  };
};

/**
 * An AppError that another attempt cannot fix (bad input, a refused target, an unknown id: not a rate
 * limit) becomes a non-retryable ApplicationFailure of the error's name, with its code (and field) as
 * details. Everything else is retried as the workflow says.
 */
export const callersFaultsFailAtOnce: ActivityInterceptorsFactory = () => ({
  inbound: {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (err) {
        if (!(err instanceof AppError) || err.retryable) throw err;
        const field = err instanceof InvalidInputError ? err.field : undefined;
        throw ApplicationFailure.create({
          message: err.message,
          type: err.name,
          nonRetryable: true,
          details: [{ code: err.code, ...(field ? { field } : {}) }],
          cause: err,
        });
      }
    },
  },
});
