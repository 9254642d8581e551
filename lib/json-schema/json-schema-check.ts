// JSON Schema checks of captured bodies (draft 2020-12, by Ajv). An owner's schema is untrusted
// input, so: at most 64 KiB and 32 levels deep (Ajv's advice for untrusted schemas), `pattern` and
// `patternProperties` on RE2 (linear time), `uniqueItems` (which compares every pair) only with a
// `maxItems` of at most 1,000, no remote $ref (nothing is fetched), `format` an annotation as draft
// 2020-12 makes it by default (no format's regular expression runs), unknown keywords ignored
// (schemas copied from an OpenAPI document carry `example` and `x-` keys), and a check stops at its
// first failure (Ajv's `allErrors` kept an error object for every failing branch of every item: a
// 600-branch `anyOf` over 20,000 items took 9 s and, over 240,000, 4 GB). These bound the work per
// byte of body but not the whole: a check runs on a thread of its own with a time and memory budget
// (lib/json-schema/json-schema-pool.ts), never on the API's event loop.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';
import { schemaProblem } from './json-schema-limits.ts';

export const MAX_SCHEMA_ERRORS = 20;

/**
 * RE2 in place of RegExp for the schema's own patterns (`code` names it in generated code). Ajv keeps
 * one compiled pattern per `toString()`, so each says which pattern it is.
 */
const re2 = Object.assign(
  (pattern: string, flags: string) => {
    const re = RE2JS.compile(pattern);
    return { test: (s: string) => re.test(s), toString: () => `/${pattern}/${flags}` };
  },
  { code: 're2js' },
);

function newAjv() {
  const ajv = new Ajv2020({
    // The first failure only (see above): never an error object per failing branch of every item.
    allErrors: false,
    strict: false,
    logger: false,
    code: { regExp: re2 },
    // A $ref is a call, never a copy: 1,200 references to one 40-property schema (38 KB) compiled
    // to 100 MB of code in 170 s when each was inlined; as calls, in well under a second.
    inlineRefs: false,
    // Nothing is fetched: a $ref to anything but the schema itself does not compile.
    loadSchema: undefined,
    // An annotation (draft 2020-12's default): no format is asserted, unknown ones included.
    validateFormats: false,
  });
  return ajv;
}

/** One problem with a body: where (a JSON Pointer into it, "" for the whole) and what. */
export interface SchemaError {
  path: string;
  message: string;
}
export interface SchemaVerdict {
  valid: boolean;
  errors: SchemaError[];
}

/** A schema compiled, or why it cannot be used (on a checker's thread: lib/json-schema/json-schema-thread.ts). */
export function compileSchema(schema: unknown): ValidateFunction | string {
  const problem = schemaProblem(schema);
  if (problem) return problem;
  try {
    // An instance of its own: schemas of different owners with the same $id cannot clash, and
    // nothing of a replaced schema stays in a shared cache.
    return newAjv().compile(schema as object); // an object: schemaProblem said so
  } catch (err) {
    return `is not a JSON Schema this service can check with (${(err as Error).message})`;
  }
}

const errorOf = (e: ErrorObject): SchemaError =>
  e.keyword === 'required'
    ? {
        path: `${e.instancePath}/${String(e.params.missingProperty).replace(/~/g, '~0').replace(/\//g, '~1')}`,
        message: 'is required',
      }
    : { path: e.instancePath, message: e.message ?? e.keyword };

/** `body` (as stored) checked against a compiled schema. */
export function checkBody(validate: ValidateFunction, body: string | null, encoding: 'utf8' | 'base64'): SchemaVerdict {
  if (body === null) return { valid: false, errors: [{ path: '', message: 'is missing: the request had no body' }] };
  if (encoding === 'base64')
    return { valid: false, errors: [{ path: '', message: 'is not JSON: the body is binary' }] };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return { valid: false, errors: [{ path: '', message: `is not JSON (${(err as Error).message})` }] };
  }
  try {
    if (validate(value)) return { valid: true, errors: [] };
  } catch {
    // A recursive schema over a body nested deeper than the stack goes: a verdict, never a throw.
    return { valid: false, errors: [{ path: '', message: 'could not be checked: the body is nested too deeply' }] };
  }
  // Each failing branch of an anyOf says the same of the same place: said once.
  const errors = new Map<string, SchemaError>();
  for (const e of validate.errors ?? []) {
    const error = errorOf(e);
    errors.set(`${error.path}\n${error.message}`, error);
    if (errors.size === MAX_SCHEMA_ERRORS) break;
  }
  return { valid: false, errors: [...errors.values()] };
}
