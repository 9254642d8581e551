import type { z } from 'zod';
import { InvalidInputError } from '../lib/errors.ts';

/** Parses untrusted input; the first problem becomes a 400 that names the field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, where: 'query' | 'body' | 'path' | 'header'): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  // A key the schema does not know (a typo such as requestPerSecond) is named as the field.
  if (issue.code === 'unrecognized_keys') {
    const field = [...issue.path, issue.keys[0]!].map(String).join('.');
    throw new InvalidInputError(`${field}: is not a field of this ${where} (a typo?)`, field);
  }
  const field = issue.path.map(String).join('.');
  if (!field) throw new InvalidInputError(`Invalid ${where}: ${issue.message}`);
  const missing = issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined;
  throw new InvalidInputError(missing ? `${field} is required (${where})` : `${field}: ${issue.message} (${where})`, field);
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
