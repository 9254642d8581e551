// The `steps` of a load test's start body: a scenario each user runs in order (domain/load/scenario.ts).
import { headerMap, METHODS_WITH_BODY } from '../http-fields.ts';
import { z } from 'zod';
import { placeholdersOf } from '../../lib/load/placeholders.ts';

export const MAX_STEPS = 10;

export const stepSchema = (methods: readonly [string, ...string[]], reservedHeaders: ReadonlySet<string>) =>
  z
    .object(
      {
        name: z.string({ error: 'must be a string' }).min(1).max(60, 'must be at most 60 characters').optional(),
        method: z
          .string({ error: 'must be a string' })
          .transform((m) => m.toUpperCase())
          .pipe(z.enum(methods, { error: `must be one of ${methods.join(', ')}` }))
          .optional(),
        path: z.string({ error: 'must be a string' }).min(1).max(2000, 'must be at most 2000 characters').optional(),
        headers: headerMap(50, reservedHeaders, 'must not set the headers the client sets'),
        body: z
          .string({ error: 'must be a string' })
          .max(64 * 1024, 'must be at most 64 KiB')
          .optional(),
        capture: z
          .record(
            z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,31}$/, 'must be names of letters, digits and _'),
            z.string().regex(/^(\/([^/~]|~[01])*)*$/, 'must be JSON pointers such as /data/id'),
          )
          .refine((c) => Object.keys(c).length <= 10, 'must hold at most 10 values')
          .default({}),
      },
      { error: 'must be objects {method, path, headers, body, capture}' },
    )
    .strict();

export type StepInput = z.output<ReturnType<typeof stepSchema>>;

/**
 * The faults of a scenario against its test: every step on the target's origin (the users' one
 * connection, checked by the SSRF guard), a body only with a method that sends one, and every
 * placeholder captured by an earlier step. Each as [path, message].
 */
export function stepFaults(
  steps: readonly StepInput[],
  targetUrl: string,
  defaultMethod: string,
): Array<[Array<string | number>, string]> {
  const faults: Array<[Array<string | number>, string]> = [];
  let origin: string | null = null;
  try {
    origin = new URL(targetUrl).origin;
  } catch {
    // targetUrl's own check names it.
  }
  const captured = new Set<string>();
  // (Run on what the shapes let through, which may still hold values they refused: read defensively.)
  steps.forEach((step, i) => {
    if (typeof step !== 'object' || step === null) return;
    const method = step.method ?? defaultMethod;
    const headers = typeof step.headers === 'object' && step.headers !== null ? Object.values(step.headers) : [];
    const capture = typeof step.capture === 'object' && step.capture !== null ? Object.keys(step.capture) : [];
    if (typeof step.path === 'string' && origin) {
      const plain = step.path.replace(/\{\{[^{}]*\}\}/g, 'x'); // [^{}]: linear over a run of {
      if (!/^\//.test(plain) && !/^https?:\/\//i.test(plain))
        faults.push([['steps', i, 'path'], "must be a path (/orders) or a URL on the target's origin"]);
      else if (new URL(plain, origin).origin !== origin)
        faults.push([['steps', i, 'path'], `must be on the target's origin ${origin}`]);
    }
    if (step.body !== undefined && !METHODS_WITH_BODY.has(method))
      faults.push([['steps', i, 'body'], 'is sent only with POST, PUT and PATCH']);
    const used = [step.path, step.body, ...headers]
      .filter((t): t is string => typeof t === 'string')
      .flatMap(placeholdersOf);
    const missing = used.find((name) => !captured.has(name));
    if (missing) faults.push([['steps', i], `uses {{${missing}}}, which no earlier step captures`]);
    for (const name of capture) captured.add(name);
  });
  return faults;
}
