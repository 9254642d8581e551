// The field types the inputs (bodies, queries, tool arguments) are written with: one rule, one
// wording of its refusal, whichever input it stands in.
import { z } from 'zod';
import { PUBLIC_ID_PATTERN } from '../lib/auth/tokens.ts';
import { described } from './validate.ts';

interface WholeNumberWords {
  /** What it counts, when the type's message names it ("seconds": "must be a whole number of seconds"). */
  of?: string;
  /** The range's message, when it says more than "must be from `min` to `max`". */
  range?: string;
}

const wordsOf = (min: number, max: number, { of, range }: WholeNumberWords) => ({
  whole: of ? `must be a whole number of ${of}` : 'must be a whole number',
  range: range ?? `must be from ${min} to ${max}`,
});

/** A whole number from `min` to `max`. */
export const wholeNumber = (min: number, max: number, words: WholeNumberWords = {}) => {
  const { whole, range } = wordsOf(min, max, words);
  return z.number({ error: whole }).int(whole).min(min, range).max(max, range);
};

/** A whole number from `min` to `max` read from a query parameter, whose value arrives as text. */
export const wholeNumberParam = (min: number, max: number, words: WholeNumberWords = {}) => {
  const { whole, range } = wordsOf(min, max, words);
  return z.coerce.number({ error: whole }).int(whole).min(min, range).max(max, range);
};

/**
 * The public id of a job or a webhook (lib/auth/tokens.ts), `of` what (`a load test`): a value that cannot
 * be one is refused as input (400), so a 404 is left to an id that is unknown or not yours.
 */
export const publicIdField = (of: string) =>
  z
    .string({ error: 'must be a string' })
    .regex(PUBLIC_ID_PATTERN, `is not ${of} id (up to 64 letters, digits, - and _)`);

/**
 * The parameters a REST path names (`{test_id}`): each has one meaning across the API, so an operation's
 * path parameters are read from its path (contract/operation.ts) rather than declared beside it.
 */
export const PATH_PARAMS = {
  test_id: described(publicIdField('a load test'), 'The test_id load_test_start returned (or load_test_list shows)'),
  job_id: described(publicIdField('a video job'), 'The job_id remove_video_watermark returned'),
  check_id: publicIdField('a pipeline check'),
} satisfies Record<string, z.ZodType>;

export type PathParamName = keyof typeof PATH_PARAMS;
