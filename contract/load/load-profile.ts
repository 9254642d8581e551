// How a load test's users and requests unfold: whole numbers and durations as the start body takes
// them, stages (k6's ramping executors) and iterations (k6's per-vu-iterations), each with the faults
// of its combination with the other fields, named by field.
import { z } from 'zod';
import { DURATION_EXAMPLES, parseDuration } from '../../lib/duration.ts';
import { MAX_TEST_SECONDS } from '../../lib/plans.ts';
import { wholeNumber } from '../input-fields.ts';

/** Stages of one test, at most. */
export const MAX_STAGES = 20;

/** Whole seconds from `min` to `max`: a number, or a duration such as "10m" (lib/duration.ts, as the CLI's flags). */
export const seconds = (min: number, max: number) => {
  const what = `must be seconds or a duration such as ${DURATION_EXAMPLES}`;
  return z
    .union([z.number(), z.string()], { error: what })
    .transform((given, ctx) => {
      const s = typeof given === 'number' ? given : parseDuration(given);
      if (s === null) ctx.addIssue({ code: 'custom', message: what });
      return s ?? Number.NaN;
    })
    .pipe(wholeNumber(min, max));
};

export const stagesSchema = z
  .array(
    z
      .object(
        { duration: seconds(0, MAX_TEST_SECONDS), target: wholeNumber(0, 1_000_000) },
        { error: 'must be objects {duration, target}' },
      )
      .strict(),
    { error: 'must be a list of {duration, target}' },
  )
  .min(1, 'must hold 1 to 20 stages')
  .max(MAX_STAGES, 'must hold 1 to 20 stages')
  .optional()
  .describe(
    'Instead of rampUpTime: up to 20 steps, ' +
      'each moving the target linearly to its own over its duration in seconds (0 jumps), like k6 ramping executors',
  );

type Fault = [path: string[], message: string];

/** What a body with stages may not also say (a rate test's missing concurrentUsers is the caller's "is required"). */
export function stageFaults(b: {
  stages?: Array<{ duration: number; target: number }>;
  stageTarget?: 'users' | 'rate';
  testDuration?: number;
  rampUpTime?: number;
  requestsPerSecond?: number;
  concurrentUsers?: number;
}): Fault[] {
  if (!b.stages) return [];
  const faults: Fault[] = [];
  const issue = (field: string, message: string) => faults.push([[field], message]);
  const total = b.stages.reduce((n, st) => n + st.duration, 0);
  const peak = b.stages.reduce((n, st) => Math.max(n, st.target), 0);
  if (total < 10 || total > MAX_TEST_SECONDS)
    issue('stages', `must last 10 to ${MAX_TEST_SECONDS} seconds in all (they last ${total})`);
  if (b.testDuration !== undefined && b.testDuration !== total)
    issue('testDuration', `must be the stages' total (${total}), or left out`);
  if (b.rampUpTime !== undefined) issue('rampUpTime', 'is replaced by stages: leave it out');
  if (b.requestsPerSecond !== undefined)
    issue(
      'requestsPerSecond',
      `is replaced by stages${b.stageTarget === 'rate' ? '' : ' with stageTarget "rate"'}: leave it out`,
    );
  if (peak === 0) issue('stages', 'must reach a target above 0');
  // The test ends as the last stage does: a jump there would never be in effect.
  if (b.stages.at(-1)?.duration === 0)
    issue('stages', 'must not end with a stage of duration 0 (it would never be in effect)');
  if ((b.stageTarget ?? 'users') === 'users') {
    if (peak > 10_000) issue('stages', 'targets are users: at most 10000');
    if (b.concurrentUsers !== undefined && b.concurrentUsers !== peak)
      issue('concurrentUsers', `must be the stages' peak (${peak}), or left out`);
  }
  return faults;
}

/**
 * Iterations count each user's requests: users that come and go with stages, arrivals on a schedule
 * and a replay's recorded sequence have no count of their own to reach.
 */
export function iterationsFaults(b: {
  iterations?: number;
  requestsPerSecond?: number;
  stages?: unknown;
  replay?: unknown;
}): Fault[] {
  if (b.iterations === undefined) return [];
  const instead = [
    (b.requestsPerSecond ?? 0) > 0 ? 'requestsPerSecond' : '',
    b.stages ? 'stages' : '',
    b.replay ? 'replay' : '',
  ].filter(Boolean);
  return instead.length
    ? [[['iterations'], `counts each user's requests in the closed model: leave out ${instead.join(' and ')}`]]
    : [];
}
