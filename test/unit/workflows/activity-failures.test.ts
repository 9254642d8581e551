// What a workflow reads of a failed activity: the activity's own error behind Temporal's wrapper.
import { ActivityFailure, ApplicationFailure, CancelledFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { activityCause, activityFailureMessage } from '../../../workflows/activity-failures.ts';

const failed = (cause?: Error) =>
  new ActivityFailure('activity failed', 'inspectVideo', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', cause);

describe('activityCause', () => {
  it('is the error the activity threw, behind its ActivityFailure', () => {
    const thrown = ApplicationFailure.nonRetryable('not a video');
    expect(activityCause(failed(thrown))).toBe(thrown);
    const timeout = new TimeoutFailure('deadline', undefined, 'START_TO_CLOSE');
    expect(activityCause(failed(timeout))).toBe(timeout);
  });

  it('is the error itself when it is no ActivityFailure, or one without a cause', () => {
    const own = new Error('a bug in the workflow');
    expect(activityCause(own)).toBe(own);
    const bare = failed();
    expect(activityCause(bare)).toBe(bare);
  });
});

describe('activityFailureMessage', () => {
  it("says the activity's own words", () => {
    expect(activityFailureMessage(failed(ApplicationFailure.nonRetryable('the upload holds a C2PA manifest')))).toBe(
      'the upload holds a C2PA manifest',
    );
    expect(activityFailureMessage(failed())).toBe('activity failed');
  });

  it('is undefined for a cancelled activity and for any error not an activity failure', () => {
    expect(activityFailureMessage(failed(new CancelledFailure('cancelled')))).toBeUndefined();
    expect(activityFailureMessage(new CancelledFailure('cancelled'))).toBeUndefined();
    expect(activityFailureMessage(new Error('a bug in the workflow'))).toBeUndefined();
  });
});
