// JSON Schema checks of captured bodies (draft 2020-12, by Ajv). An owner's schema is untrusted
// input, so: at most 64 KiB and 32 levels deep (Ajv's advice for untrusted schemas), `pattern` and
// `patternProperties` on RE2 (linear time), `uniqueItems` (which compares every pair) only with a
// `maxItems` of at most 1,000, no remote $ref (nothing is fetched), `format` an annotation as draft
// 2020-12 makes it by default (no format's regular expression runs), unknown keywords ignored
// (schemas copied from an OpenAPI document carry `example` and `x-` keys), and a check stops at its
// first failure (Ajv's `allErrors` kept an error object for every failing branch of every item: a
// 600-branch `anyOf` over 20,000 items took 9 s and, over 240,000, 4 GB). These bound the work per
// byte of body but not the whole: a check runs on a thread of its own with a time and memory budget
// (lib/json-schema-pool.ts), never on the API's event loop.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';

export const MAX_SCHEMA_BYTES = 64 * 1024;
const MAX_DEPTH = 32;
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

const MAX_UNIQUE_ITEMS = 1_000;

/** Where a schema asks for unique items of an array it does not bound (each pair is compared), or null. */
function unboundedUnique(value: unknown, at = ''): string | null {
  if (value === null || typeof value !== 'object') return null;
  const o = value as Record<string, unknown>;
  if (
    !Array.isArray(value) &&
    o.uniqueItems === true &&
    !(typeof o.maxItems === 'number' && o.maxItems <= MAX_UNIQUE_ITEMS)
  )
    return at || '/';
  for (const [k, v] of Object.entries(value)) {
    const found = unboundedUnique(v, `${at}/${k}`);
    if (found) return found;
  }
  return null;
}

function depth(value: unknown, at = 0): number {
  if (value === null || typeof value !== 'object' || at > MAX_DEPTH) return at;
  let most = at;
  for (const v of Object.values(value)) most = Math.max(most, depth(v, at + 1));
  return most;
}

/**
 * Why a schema cannot be used, found without compiling it (linear in its size: fit for the event
 * loop), or null. Compiling can take seconds for a 64 KiB schema: that happens on the checker's threads.
 */
export function schemaProblem(schema: unknown): string | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'must be a JSON Schema object';
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES) return 'must be at most 64 KiB as JSON';
  if (depth(schema) > MAX_DEPTH) return `must nest at most ${MAX_DEPTH} levels deep`;
  const unique = unboundedUnique(schema);
  if (unique)
    return `must give uniqueItems a maxItems of at most ${MAX_UNIQUE_ITEMS} (at ${unique}): it compares every pair of items`;
  return null;
}

/** A schema compiled, or why it cannot be used (on a checker's thread: lib/json-schema-thread.ts). */
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
