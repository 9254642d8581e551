// A refusal that names a field of the request (the API's own schema checked here: check-input.ts, or
// the API's 400) told in the words the user typed: the flag that gave the field, and exit 2 (wrong usage).
import { InvalidInputError } from '../lib/errors.ts';
import { ApiError, UsageError } from './errors.ts';

/** Which flag (as typed) gave which field of the request: `{'retention.max_requests': '--keep'}`. */
export type FieldFlags = Record<string, string | undefined>;

/** The API's answers that refuse a value the user gave: a bad one, a private target, past the plan. */
const REFUSALS = new Set(['invalid_input', 'target_not_allowed', 'plan_limit']);

/** The field a message names at its start (`retention.max_requests: ...`, `webhook_id is required`). */
const NAMED = /^([A-Za-z_][\w-]*(?:\.[\w-]+)*)(?:: | is required)/;

/** `run`, with every refusal that names a field of `flags` told as its flag (UsageError: exit 2). */
export async function asFlags<T>(flags: FieldFlags, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw flagError(e, flags) ?? e;
  }
}

/** The refusal `e` told as the flag that gave its field, when it names one of `flags`. */
export function flagError(e: unknown, flags: FieldFlags): UsageError | undefined {
  let message: string;
  if (e instanceof InvalidInputError) message = e.message;
  else if (e instanceof ApiError && e.status < 500 && REFUSALS.has(e.errorCode)) message = e.detail;
  else return undefined;
  const field = NAMED.exec(message)?.[1];
  if (!field) return undefined;
  const given = Object.keys(flags)
    .filter((k) => flags[k] && (field === k || field.startsWith(`${k}.`)))
    .sort((a, b) => b.length - a.length)[0];
  if (!given) return undefined;
  const said = message
    .slice(field.length)
    .replace(/^:? /, '')
    .replace(/ \((query|body)\)$/, '');
  return new UsageError(`${flags[given]}${field === given ? '' : ` (${field})`}: ${said}`);
}
