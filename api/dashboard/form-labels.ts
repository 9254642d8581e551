// A dashboard form's refusals name the field by the label the user sees beside it, not by the API's
// name for it: the API's checks (and the services') name a field first in their message
// (`rampUpTime: must not exceed testDuration`), and the form's label takes its place
// (`Ramp-up: must not exceed testDuration`).
import { AppError, InvalidInputError } from '../../lib/errors.ts';

/** Labels by the API's field path (`rampUpTime`, `response.status`); the longest matching prefix names a field. */
export type FormLabels = Readonly<Record<string, string>>;

export function labelled<E>(err: E, labels: FormLabels): E | InvalidInputError {
  if (!(err instanceof InvalidInputError) || !err.field || !err.message.startsWith(err.field)) return err;
  const parts = err.field.split('.');
  for (let n = parts.length; n > 0; n -= 1) {
    const label = labels[parts.slice(0, n).join('.')];
    if (!label) continue;
    const rest = parts.slice(n).join('.');
    return new InvalidInputError(
      `${label}${rest ? ` (${rest})` : ''}${err.message.slice(err.field.length)}`,
      err.field,
      err.code as 'invalid_input' | 'target_not_allowed',
    );
  }
  return err;
}

/**
 * What a form's post shows on the form when it is refused, its field named by `labels`: the caller's
 * mistakes (bad input, the plan's bounds), its headers set on the answer (a 429's Retry-After). Anything
 * else (our bugs, a backend away) is thrown on.
 */
export function formRefusal(ctx: { set(headers: Record<string, string>): void }, err: unknown, labels: FormLabels) {
  if (!(err instanceof AppError) || !err.isCallersFault) throw err;
  ctx.set({ ...err.headers });
  return labelled(err, labels);
}
