// A request checked with the API's own schema before it is sent, a refusal named as the flag of its
// field. Apart from flag-errors.ts: this one loads zod and the API's validation, which only the
// commands that check their input here need.
import type { z } from 'zod';
import { validate } from '../contract/validate.ts';
import { UsageError } from './errors.ts';
import { type FieldFlags, flagError } from './flag-errors.ts';

/** The input as the API's schema reads it, or a UsageError naming the flag of the field it refuses. */
export function checked<S extends z.ZodType>(
  schema: S,
  input: Record<string, unknown>,
  where: 'query' | 'body',
  flags: FieldFlags,
) {
  // As sent: a value left undefined is no parameter, and no key of the JSON body.
  const sent = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  try {
    return validate(schema, sent, where);
  } catch (e) {
    throw flagError(e, flags) ?? new UsageError((e as Error).message);
  }
}
