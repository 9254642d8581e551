// What a failed activity said. Temporal hands a workflow an activity's error wrapped in an
// ActivityFailure (its cause: the activity's own error, or a TimeoutFailure when no attempt ended in time).
import { ActivityFailure, isCancellation } from '@temporalio/workflow';

/** The error behind the ActivityFailure Temporal wraps an activity's error in (any other error as it is). */
export function activityCause(err: unknown): Error {
  return err instanceof ActivityFailure && err.cause ? err.cause : (err as Error);
}

/** The words of an activity that failed (not one cancelled); undefined for any other error. */
export function activityFailureMessage(err: unknown): string | undefined {
  if (!(err instanceof ActivityFailure) || isCancellation(err)) return undefined;
  return err.cause?.message ?? err.message;
}
