// The activity interceptor that keeps Temporal from retrying what cannot succeed.
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { NotFoundError, RateLimitedError, UpstreamError } from '../../../../lib/errors.ts';
import { ForbiddenAddressError } from '../../../../lib/net/target-guard.ts';
import { callersFaultsFailAtOnce } from '../../../../workers/pools/interceptors.ts';

const execute = (thrown: unknown) => {
  const inbound = callersFaultsFailAtOnce({} as never).inbound!;
  return inbound.execute!({ args: [], headers: {} } as unknown as ActivityExecuteInput, async () => {
    throw thrown;
  });
};

describe('callersFaultsFailAtOnce', () => {
  it('turns a refused target into a non-retryable failure with its code and field', async () => {
    const err = await execute(
      new ForbiddenAddressError('targetUrl: target not allowed: 10.0.0.1 is private', 'targetUrl'),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    const failure = err as ApplicationFailure;
    expect(failure.nonRetryable).toBe(true);
    expect(failure.type).toBe('ForbiddenAddressError');
    expect(failure.message).toBe('targetUrl: target not allowed: 10.0.0.1 is private');
    expect(failure.details).toEqual([{ code: 'target_not_allowed', field: 'targetUrl' }]);
  });

  it('does the same for an unknown id', async () => {
    const failure = (await execute(new NotFoundError('No webhook x')).catch((e: unknown) => e)) as ApplicationFailure;
    expect([failure.nonRetryable, failure.type, failure.details]).toEqual([
      true,
      'NotFoundError',
      [{ code: 'not_found' }],
    ]);
  });

  it(
    'leaves what a later attempt can fix to the retry ' +
      'policy: upstream failures, rate limits, any other ' +
      'error',
    async () => {
      for (const thrown of [
        new UpstreamError('the registry timed out', true),
        new RateLimitedError('slow down', 5),
        new Error('socket hang up'),
      ]) {
        expect(await execute(thrown).catch((e: unknown) => e)).toBe(thrown);
      }
    },
  );
});
